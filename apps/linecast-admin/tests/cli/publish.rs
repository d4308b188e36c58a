//! `data publish` to a `file://` target: a generated store arrives byte for
//! byte, release manifests written last; a second run writes nothing and a
//! changed object alone is written again; a breach of the data contract is
//! named by object, row and column and publishes nothing; a dry run writes
//! nothing; linecast's own `archive/` is not copied.
//! (The S3 path, against moto, is in linecast-store's bucket suite.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::{Admin, Run};

const TODAY: &str = "2026-11-21";

/// Every file under `root`, by its key, with its bytes.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let key = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(key, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    if root.exists() {
        walk(root, root, &mut out);
    }
    out
}

/// A small generated store in `dir/name`, as `fixtures generate` writes it.
fn generated(admin: &Admin, name: &str) -> PathBuf {
    let out = admin.dir().join(name);
    let out_arg = out.display().to_string();
    admin.ok(&[
        "fixtures",
        "generate",
        "--out",
        &out_arg,
        "--profile",
        "small",
        "--today",
        TODAY,
        "--seed",
        "7",
    ]);
    out
}

fn url(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

fn publish(admin: &Admin, args: &[&str]) -> Run {
    let mut all = vec!["data", "publish"];
    all.extend_from_slice(args);
    admin.run(&all)
}

/// The keys a run says it wrote, in the order it says so.
fn written(run: &Run) -> Vec<String> {
    run.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("wrote ").or_else(|| l.strip_prefix("would write ")))
        .filter(|l| l.ends_with(" bytes)"))
        .map(|l| l.split(' ').next().unwrap().to_owned())
        .collect()
}

fn summary(run: &Run) -> &str {
    run.stdout.lines().last().unwrap_or_default()
}

#[test]
fn a_generated_store_is_published_byte_for_byte_with_the_release_manifests_last() {
    let admin = Admin::new();
    let expected = tree(&generated(&admin, "generated"));
    let target = admin.dir().join("bucket/store");
    let target_url = url(&target);
    let run = publish(
        &admin,
        &[
            "--demo",
            "--profile",
            "small",
            "--today",
            TODAY,
            "--seed",
            "7",
            "--store",
            &target_url,
        ],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(tree(&target), expected, "the target holds the generated store exactly");

    let order = written(&run);
    assert_eq!(order.len(), expected.len(), "{}", run.stdout);
    let first_manifest = order.iter().position(|k| k.starts_with("releases/")).unwrap();
    assert!(
        order[first_manifest..].iter().all(|k| k.starts_with("releases/")),
        "release manifests are written after every other object: {order:#?}"
    );
    let position = |key: &str| order.iter().position(|k| k == key).unwrap();
    assert!(position("teams/nba.csv") < position("scores/nba.csv"));
    assert!(position("datasets/nba/nba_history.csv") < position("products/catalog.json"));
    assert!(
        summary(&run).starts_with(&format!("wrote {} object(s)", expected.len())),
        "{}",
        run.stdout
    );

    let check = admin.run(&["data", "validate", "--store", &target_url]);
    assert_eq!(check.code, Some(0), "{}", check.stdout);
}

#[test]
fn a_second_publish_writes_nothing_and_then_only_the_changed_object() {
    let admin = Admin::new();
    let source = generated(&admin, "store");
    // What a server running on this folder wrote: linecast's own, not copied.
    std::fs::create_dir_all(source.join("archive/nba/odds")).unwrap();
    std::fs::write(source.join("archive/nba/odds/00ff.csv"), "kept by a server").unwrap();
    let source_arg = source.display().to_string();
    let target = admin.dir().join("target");
    let target_url = url(&target);

    let first = publish(&admin, &[&source_arg, "--store", &target_url]);
    assert_eq!(first.code, Some(0), "{}\n{}", first.stdout, first.stderr);
    let mut expected = tree(&source);
    expected.remove("archive/nba/odds/00ff.csv");
    assert_eq!(tree(&target), expected, "every artifact but linecast's own archive");

    let manifest = target.join(format!("releases/nba/{TODAY}.json"));
    let modified = std::fs::metadata(&manifest).unwrap().modified().unwrap();
    let again = publish(&admin, &[&source_arg, "--store", &target_url]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert_eq!(written(&again), Vec::<String>::new(), "{}", again.stdout);
    assert!(
        summary(&again).starts_with("wrote 0 object(s)")
            && summary(&again).ends_with(&format!("{} already there with the same bytes", expected.len())),
        "{}",
        again.stdout
    );
    assert_eq!(
        std::fs::metadata(&manifest).unwrap().modified().unwrap(),
        modified,
        "an unchanged object is not written again (a write is a new version)"
    );

    // A new version of one manifest (a trailing space keeps the JSON valid).
    let key = format!("releases/nba/{TODAY}.json");
    let mut bytes = std::fs::read(source.join(&key)).unwrap();
    bytes.push(b' ');
    std::fs::write(source.join(&key), &bytes).unwrap();
    let changed = publish(&admin, &[&source_arg, "--store", &target_url]);
    assert_eq!(changed.code, Some(0), "{}", changed.stderr);
    assert_eq!(written(&changed), std::slice::from_ref(&key), "{}", changed.stdout);
    assert_eq!(std::fs::read(target.join(&key)).unwrap(), bytes);
}

#[test]
fn a_malformed_artifact_is_named_by_object_row_and_column_and_nothing_is_published() {
    let admin = Admin::new();
    let source = generated(&admin, "store");
    let scores = source.join("scores/nba.csv");
    let text = std::fs::read_to_string(&scores).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let column = lines[0].split(',').position(|c| c == "home_score").unwrap();
    let row = (1..lines.len())
        .find(|&i| !lines[i].split(',').nth(column).unwrap().is_empty())
        .unwrap();
    let mut fields: Vec<&str> = lines[row].split(',').collect();
    fields[column] = "ninety";
    lines[row] = fields.join(",");
    std::fs::write(&scores, lines.join("\n") + "\n").unwrap();

    let target = admin.dir().join("target");
    let target_url = url(&target);
    let source_arg = source.display().to_string();
    let run = publish(&admin, &[&source_arg, "--store", &target_url]);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let named = format!("scores/nba.csv row {row} column home_score: ");
    assert!(
        run.stdout.lines().any(|l| l.starts_with(&named)),
        "expected a line starting {named:?}:\n{}",
        run.stdout
    );
    assert!(summary(&run).contains("nothing was published"), "{}", run.stdout);
    assert_eq!(tree(&target).len(), 0, "nothing reached the target");
}

#[test]
fn a_dry_run_lists_what_would_be_written_and_writes_nothing() {
    let admin = Admin::new();
    let source = generated(&admin, "store");
    let source_arg = source.display().to_string();
    let target = admin.dir().join("target");
    let target_url = url(&target);
    let dry = publish(&admin, &[&source_arg, "--store", &target_url, "--dry-run"]);
    assert_eq!(dry.code, Some(0), "{}", dry.stderr);
    assert_eq!(written(&dry).len(), tree(&source).len(), "{}", dry.stdout);
    assert!(summary(&dry).starts_with("would write "), "{}", dry.stdout);
    assert!(!target.exists(), "a dry run does not even create the folder");

    // Against a target holding all but one object, only that one is listed.
    publish(&admin, &[&source_arg, "--store", &target_url]);
    std::fs::remove_file(target.join("teams/nhl.csv")).unwrap();
    let dry = publish(&admin, &[&source_arg, "--store", &target_url, "--dry-run"]);
    assert_eq!(written(&dry), ["teams/nhl.csv"], "{}", dry.stdout);
    assert!(!target.join("teams/nhl.csv").exists());
}

#[test]
fn a_source_and_demo_together_or_neither_are_refused() {
    let admin = Admin::new();
    let both = publish(&admin, &["some/dir", "--demo", "--store", "memory://"]);
    assert_eq!(both.code, Some(2), "{}", both.stderr);
    let neither = publish(&admin, &["--store", "memory://"]);
    assert_eq!(neither.code, Some(2), "{}", neither.stderr);
}

/// Sets `column` of the first data row of `key` under `store` to `value`;
/// returns that row's number (1 is the first after the header).
fn set_first(store: &Path, key: &str, column: &str, value: &str) -> usize {
    let path = store.join(key);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let at = lines[0].split(',').position(|c| c == column).unwrap();
    let row = (1..lines.len())
        .find(|&i| !lines[i].split(',').nth(at).unwrap().is_empty())
        .unwrap_or_else(|| panic!("{key} has a row with {column}"));
    let mut fields: Vec<&str> = lines[row].split(',').collect();
    fields[at] = value;
    lines[row] = fields.join(",");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    row
}

#[test]
fn validate_names_a_line_no_book_could_quote_by_object_row_and_column() {
    let admin = Admin::new();
    let store = generated(&admin, "store");
    let puck = set_first(&store, "predictions/nhl/won_on_spread.csv", "away_point_spread", "-0.5");
    let price = set_first(&store, "odds/nba.csv", "home_money_line", "50");
    let check = admin.run(&["data", "validate", "--store", &url(&store)]);
    assert_eq!(check.code, Some(1), "{}\n{}", check.stdout, check.stderr);
    for named in [
        format!("predictions/nhl/won_on_spread.csv row {puck} column away_point_spread: "),
        format!("odds/nba.csv row {price} column home_money_line: "),
    ] {
        assert!(
            check.stdout.lines().any(|l| l.starts_with(&named)),
            "expected a line starting {named:?}:\n{}",
            check.stdout
        );
    }
}
