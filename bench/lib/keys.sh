# Sourced by bench scripts: bench customers and their API keys.
#
#   issue_keys ADMIN DATABASE_URL CUSTOMERS KEYS OUT
#
# Creates CUSTOMERS customers (bench1@linecast.local, bench2@..., each with
# a monthly quota of a billion calls, far past any run), issues KEYS keys
# dealt out among them in turn, and writes the full keys to OUT, one a
# line. Fails (status 1, a message on stderr) unless OUT holds KEYS keys.
issue_keys() {
  local admin=$1 db=$2 customers=$3 keys=$4 out=$5 c k
  for c in $(seq 1 "$customers"); do
    "$admin" customers create --database-url "$db" --email "bench$c@linecast.local" --name "Bench $c" \
      --monthly-limit 1000000000 >/dev/null || return 1
  done
  for k in $(seq 1 "$keys"); do
    "$admin" keys issue --database-url "$db" --customer-email "bench$(((k - 1) % customers + 1))@linecast.local" \
      --name bench --json
  done | sed -n 's/.*"api_key": *"\([^"]*\)".*/\1/p' >"$out"
  if [ "$(wc -l <"$out")" != "$keys" ]; then
    echo "issue_keys: issued $(wc -l <"$out") keys of $keys" >&2
    return 1
  fi
}
