#!/bin/sh
# ratios.sh prints same-run ratios of two sub-benchmarks, min/median/max.
#
#	./ratios.sh RUNS BENCH A B [test flags...]
#
# It builds the bench module's test binary once, then runs BENCH (a -bench
# pattern) RUNS times, each in a fresh process. In every run A and B run one
# after the other; the ratio A/B of their ns/op is taken per mode (the last
# element of the sub-benchmark's name, e.g. serial or parallel). The runs
# alternate in time, so a noisy neighbour weighs on both sides alike.
#
#	./ratios.sh 6 '^BenchmarkSnowflakeWide$/^(floe-id64|bwmarrin)$' floe-id64 bwmarrin
#	./ratios.sh 6 '^BenchmarkNew$/^(floe-id96|guid)$' floe-id96 guid
#
# BENCHTIME (default 500ms) sets -test.benchtime.
set -eu
[ $# -ge 4 ] || { sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 2; }
runs=$1 bench=$2 a=$3 b=$4
shift 4
cd "$(dirname "$0")"
bin=$(mktemp -d)/bench.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" .
i=0
while [ "$i" -lt "$runs" ]; do
	"$bin" -test.run '^$' -test.bench "$bench" -test.benchtime "${BENCHTIME:-500ms}" "$@" | grep '^Benchmark'
	echo "-- end of run"
	i=$((i + 1))
done | awk -v a="$a" -v b="$b" '
	/^-- end of run/ {
		for (m in A) if (m in B) r[m] = r[m] " " A[m] / B[m]
		delete A; delete B; next
	}
	{
		n = split($1, p, "/"); mode = p[n]; sub(/-[0-9]+$/, "", mode)
		if (p[2] == a) A[mode] = $3; else if (p[2] == b) B[mode] = $3
	}
	END {
		for (m in r) {
			n = split(r[m], v, " ")
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			printf "%s / %s, %s: min %.2f median %.2f max %.2f over %d runs:%s\n", a, b, m, v[1], med, v[n], n, r[m]
		}
	}'
