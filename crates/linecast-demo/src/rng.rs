//! The generator's random source: xoshiro256** seeded through SplitMix64.
//!
//! It lives here instead of coming from `rand` so that the committed fixture
//! store stays byte-identical whatever version of `rand` the workspace moves
//! to: the algorithm is fixed in this file.

/// A small, fast, reproducible PRNG. Not for anything secret.
#[derive(Debug, Clone)]
pub(crate) struct Rng {
    s: [u64; 4],
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a over a string, used to derive independent streams from names.
pub(crate) fn fnv(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        let mut st = seed;
        Self {
            s: [
                splitmix(&mut st),
                splitmix(&mut st),
                splitmix(&mut st),
                splitmix(&mut st),
            ],
        }
    }

    /// An independent stream for `(seed, name)`: each sport and season draws
    /// from its own stream, so history does not shift when `today` moves.
    pub(crate) fn stream(seed: u64, name: &str) -> Self {
        Self::new(seed ^ fnv(name).rotate_left(17))
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Standard normal by Box-Muller.
    pub(crate) fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Poisson by Knuth's method; fine for the small means of game scores.
    pub(crate) fn poisson(&mut self, mean: f64) -> u32 {
        let limit = (-mean.max(0.05)).exp();
        let mut k = 0;
        let mut p = self.unit();
        while p > limit && k < 60 {
            k += 1;
            p *= self.unit();
        }
        k
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// Picks from `(item, weight)` pairs.
    pub(crate) fn weighted<T: Copy>(&mut self, items: &[(T, u32)]) -> T {
        let total: u32 = items.iter().map(|(_, w)| *w).sum();
        let mut roll = self.below(total as usize) as u32;
        for (item, w) in items {
            if roll < *w {
                return *item;
            }
            roll -= w;
        }
        items[items.len() - 1].0
    }

    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_sequence_and_another_seed_does_not() {
        let a: Vec<u64> = (0..8)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = Rng::new(7);
        let b: Vec<u64> = (0..8).map(|_| r.next_u64()).collect();
        let mut r = Rng::new(8);
        let c: Vec<u64> = (0..8).map(|_| r.next_u64()).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn the_first_outputs_are_pinned_so_fixtures_cannot_drift_silently() {
        let mut r = Rng::new(0);
        let first = r.next_u64();
        let mut again = Rng::new(0);
        assert_eq!(first, again.next_u64());
        assert_eq!(fnv(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv("a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn draws_stay_in_their_ranges() {
        let mut r = Rng::new(42);
        for _ in 0..10_000 {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            assert!(r.below(7) < 7);
        }
        let mean = (0..20_000).map(|_| f64::from(r.poisson(4.5))).sum::<f64>() / 20_000.0;
        assert!((mean - 4.5).abs() < 0.1, "poisson mean {mean}");
    }
}
