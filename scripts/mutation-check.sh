#!/usr/bin/env bash
# Mutation check of the capacity checks: each mutant below moves one check by
# one unit (a comparison made strict or loose, a bound shifted by one). The
# mutants are applied one at a time to a scratch copy of the source tree
# (tracked and untracked files, uncommitted changes included; the working
# tree itself is never written), the affected test suites are rebuilt in the
# copy's own build directory and run, and the file is restored. A mutant is
# killed when a suite fails (a failing test, a crash or a timeout).
#
# Prints one line per mutant, then "mutation-check: N killed, M survived".
# Exit status: 0 all killed, 1 some survived, 2 the check itself could not
# run (unknown mutant id, original text not found exactly once, the
# unmutated tree failing its suites, a mutant that does not compile).
#
# Usage: scripts/mutation-check.sh [--list] [ID...]
#   --list  print the mutants and exit
#   ID...   run only these mutants (e.g. NV-MEM-OVER AQ-ZERO)
# Environment: JOBS (build parallelism, default 2), MUTATION_KEEP=1 keeps
# the scratch directory, MUTATION_TIMEOUT (seconds per suite run, default
# 300). ccache is used when installed.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
jobs="${JOBS:-2}"
suite_timeout="${MUTATION_TIMEOUT:-300}"

# ---------------------------------------------------------------------------
# The mutants: id, file, exact original text, replacement text. The original
# must occur exactly once in the file.
ids=()
files=()
originals=()
replacements=()
mutant() {
  ids+=("$1")
  files+=("$2")
  originals+=("$3")
  replacements+=("$4")
}

nv=plugins/devices/nvidia/nvidia_fit.cpp
amd=plugins/devices/amd/amd_fit.cpp
nodefit=host/scheduling/node_fit.cpp
sq=host/scheduling/quota_limits.cpp
aq=host/admission/quota.cpp
aqh=host/admission/quota.hpp
card=plugins/devices/common/card_checks.cpp
sf=plugins/devices/common/share_fit.cpp
fitin=plugins/devices/common/fit_input.cpp
asc=plugins/devices/ascend/ascend_fit.cpp
va=plugins/devices/vastai/vastai_fit.cpp
cam=plugins/devices/cambricon/cambricon_node.cpp
mig=plugins/devices/nvidia/mig_topology.cpp

# NVIDIA fit (HAMi §5.5).
mutant NV-MEM-OVER "$nv" \
  'if (d.memory_mib - u.used_memory_mib < memory) {' \
  'if (d.memory_mib - u.used_memory_mib < memory - 1) {'
mutant NV-MEM-EXACT "$nv" \
  'if (d.memory_mib - u.used_memory_mib < memory) {' \
  'if (d.memory_mib - u.used_memory_mib <= memory) {'
mutant NV-PCT-LESS "$nv" \
  'memory = d.memory_mib * req.memory_percent / 100;' \
  'memory = d.memory_mib * req.memory_percent / 100 - 1;'
mutant NV-PCT-CEIL "$nv" \
  'memory = d.memory_mib * req.memory_percent / 100;' \
  'memory = (d.memory_mib * req.memory_percent + 99) / 100;'
mutant NV-PCT-ONE "$nv" \
  '} else if (req.memory_percent > 0) {' \
  '} else if (req.memory_percent > 1) {'
mutant NV-MEM-BEFORE-PCT "$nv" \
  'if (req.memory_mib > 0) {' \
  'if (req.memory_mib > 1) {'
mutant NV-CORE-OVER "$nv" \
  'if (d.cores - u.used_cores < cores) {' \
  'if (d.cores - u.used_cores < cores - 1) {'
mutant NV-CORE-EXACT "$nv" \
  'if (d.cores - u.used_cores < cores) {' \
  'if (d.cores - u.used_cores <= cores) {'
mutant NV-CORE-CLAMP "$nv" \
  'std::min<std::int32_t>(req.cores, 100);' \
  'std::min<std::int32_t>(req.cores, 101);'
mutant NV-SLOT-OVER "$nv" \
  'if (d.count <= u.used) {' \
  'if (d.count < u.used) {'
mutant NV-SLOT-EXACT "$nv" \
  'if (d.count <= u.used) {' \
  'if (d.count <= u.used + 1) {'
mutant NV-EXCL-USED "$nv" \
  'd.cores == 100 && cores == 100 && u.used > 0' \
  'd.cores == 100 && cores == 100 && u.used > 1'
mutant NV-EXCL-CORES "$nv" \
  'd.cores == 100 && cores == 100 && u.used > 0' \
  'd.cores == 100 && cores >= 99 && u.used > 0'
mutant NV-SATURATED "$nv" \
  'u.used_cores == d.cores && cores == 0' \
  'u.used_cores >= d.cores - 1 && cores == 0'
mutant NV-MUTEX "$nv" \
  'if (mutex && u.used != 0) {' \
  'if (mutex && u.used > 1) {'
mutant NV-QUOTA-MEM "$nv" \
  'quota->allows(quota->ctx, picked_memory + memory, picked_cores + cores)' \
  'quota->allows(quota->ctx, picked_memory + memory - 1, picked_cores + cores)'
mutant NV-QUOTA-CORES "$nv" \
  'quota->allows(quota->ctx, picked_memory + memory, picked_cores + cores)' \
  'quota->allows(quota->ctx, picked_memory + memory, picked_cores + cores - 1)'

# AMD fit (HAMi §5.6).
mutant AMD-MEM-OVER "$amd" \
  'if (d.memory_mib - u.used_memory_mib < memory) {' \
  'if (d.memory_mib - u.used_memory_mib < memory - 1) {'
mutant AMD-MEM-EXACT "$amd" \
  'if (d.memory_mib - u.used_memory_mib < memory) {' \
  'if (d.memory_mib - u.used_memory_mib <= memory) {'
mutant AMD-MEM-WHOLE "$amd" \
  'req.memory_mib > 0 ? req.memory_mib : d.memory_mib;' \
  'req.memory_mib > 0 ? req.memory_mib : d.memory_mib - 1;'
mutant AMD-CU-OVER "$amd" \
  'if (d.cores - u.used_cores < cores) {' \
  'if (d.cores - u.used_cores < cores - 1) {'
mutant AMD-CU-EXACT "$amd" \
  'if (d.cores - u.used_cores < cores) {' \
  'if (d.cores - u.used_cores <= cores) {'
mutant AMD-CU-CEIL "$amd" \
  'static_cast<std::int64_t>(d.cores) * req.cores / 100;' \
  '(static_cast<std::int64_t>(d.cores) * req.cores + 99) / 100;'
mutant AMD-CU-MIN "$amd" \
  'std::clamp<std::int64_t>(share, 1, d.cores)' \
  'std::clamp<std::int64_t>(share, 0, d.cores)'
mutant AMD-CU-MAX "$amd" \
  'std::clamp<std::int64_t>(share, 1, d.cores)' \
  'std::clamp<std::int64_t>(share, 1, d.cores + 1)'
mutant AMD-CU-WHOLE "$amd" \
  'cores = d.cores;' \
  'cores = d.cores - 1;'
mutant AMD-MUTEX "$amd" \
  'if (mutex && u.used != 0) {' \
  'if (mutex && u.used > 1) {'

# The split count every vendor but NVIDIA checks (S-FIT step 4, CardTimeSlicingExhausted).
mutant CARD-SLOT-OVER "$card" \
  'if (d.count <= u.used)' \
  'if (d.count < u.used)'
mutant CARD-SLOT-EXACT "$card" \
  'if (d.count <= u.used)' \
  'if (d.count <= u.used + 1)'

# The request's count every vendor's fit starts from (0 or less: no picks).
mutant FIT-ZERO-COUNT "$fitin" \
  'if (in.request->count <= 0)' \
  'if (in.request->count <= 1)'

# The share-fit of Hygon, Iluvatar, Cambricon and (steps 1-5) Biren (vendors §0.4).
mutant SF-MEM-OVER "$sf" \
  'if (d.memory_mib - u.used_memory_mib < memory) {' \
  'if (d.memory_mib - u.used_memory_mib < memory - 1) {'
mutant SF-MEM-EXACT "$sf" \
  'if (d.memory_mib - u.used_memory_mib < memory) {' \
  'if (d.memory_mib - u.used_memory_mib <= memory) {'
mutant SF-PCT-LESS "$sf" \
  'd.memory_mib * req.memory_percent / 100;' \
  'd.memory_mib * req.memory_percent / 100 - 1;'
mutant SF-PCT-CEIL "$sf" \
  'd.memory_mib * req.memory_percent / 100;' \
  '(d.memory_mib * req.memory_percent + 99) / 100;'
mutant SF-MEM-BEFORE-PCT "$sf" \
  'memory = req.memory_mib > 0 ?' \
  'memory = req.memory_mib > 1 ?'
mutant SF-CORE-OVER "$sf" \
  'if (d.cores - u.used_cores < cores) {' \
  'if (d.cores - u.used_cores < cores - 1) {'
mutant SF-CORE-EXACT "$sf" \
  'if (d.cores - u.used_cores < cores) {' \
  'if (d.cores - u.used_cores <= cores) {'
mutant SF-CORE-CLAMP "$sf" \
  'std::min(req.cores, 100)' \
  'std::min(req.cores, 101)'
mutant SF-EXCL-USED "$sf" \
  'd.cores == 100 && cores == 100 && u.used > 0' \
  'd.cores == 100 && cores == 100 && u.used > 1'
mutant SF-EXCL-CORES "$sf" \
  'd.cores == 100 && cores == 100 && u.used > 0' \
  'd.cores == 100 && cores >= 99 && u.used > 0'
mutant SF-SATURATED "$sf" \
  'u.used_cores == d.cores && cores == 0' \
  'u.used_cores >= d.cores - 1 && cores == 0'
mutant SF-NO-CORES "$sf" \
  'if (d.cores != 0 && u.used_cores' \
  'if (d.cores >= 0 && u.used_cores'
mutant SF-MUTEX "$sf" \
  'if (mutex && u.used > 0) {' \
  'if (mutex && u.used > 1) {'
mutant SF-QUOTA-MEM "$sf" \
  'quota->allows(quota->ctx, picked_memory + memory, picked_cores + cores)' \
  'quota->allows(quota->ctx, picked_memory + memory - 1, picked_cores + cores)'
mutant SF-QUOTA-CORES "$sf" \
  'quota->allows(quota->ctx, picked_memory + memory, picked_cores + cores)' \
  'quota->allows(quota->ctx, picked_memory + memory, picked_cores + cores - 1)'

# Ascend fit (vendors §1.5): the share-fit with soft-split cores, module
# pairs and NetworkID groups.
mutant ASC-MEM-OVER "$asc" \
  'if (d.memory_mib - u.used_memory_mib < memory) {' \
  'if (d.memory_mib - u.used_memory_mib < memory - 1) {'
mutant ASC-MEM-EXACT "$asc" \
  'if (d.memory_mib - u.used_memory_mib < memory) {' \
  'if (d.memory_mib - u.used_memory_mib <= memory) {'
mutant ASC-PCT-LESS "$asc" \
  'd.memory_mib * req.memory_percent / 100 : 0;' \
  'd.memory_mib * req.memory_percent / 100 - 1 : 0;'
mutant ASC-PCT-CEIL "$asc" \
  'd.memory_mib * req.memory_percent / 100 : 0;' \
  '(d.memory_mib * req.memory_percent + 99) / 100 : 0;'
mutant ASC-PCT-UNSET "$asc" \
  'req.memory_percent != 101 ?' \
  'req.memory_percent != 100 ?'
mutant ASC-MEM-BEFORE-PCT "$asc" \
  'if (memory <= 0)' \
  'if (memory <= 1)'
mutant ASC-CORE-OVER "$asc" \
  'if (total - u.used_cores < cores) {' \
  'if (total - u.used_cores < cores - 1) {'
mutant ASC-CORE-EXACT "$asc" \
  'if (total - u.used_cores < cores) {' \
  'if (total - u.used_cores <= cores) {'
mutant ASC-CORE-CLAMP "$asc" \
  'std::min(req.cores, 100)' \
  'std::min(req.cores, 101)'
mutant ASC-SOFT-TOTAL "$asc" \
  'soft ? 100 : d.cores' \
  'soft ? 101 : d.cores'
mutant ASC-EXCL-USED "$asc" \
  'total == 100 && cores == 100 && u.used > 0' \
  'total == 100 && cores == 100 && u.used > 1'
mutant ASC-EXCL-CORES "$asc" \
  'total == 100 && cores == 100 && u.used > 0' \
  'total == 100 && cores >= 99 && u.used > 0'
mutant ASC-SATURATED "$asc" \
  'u.used_cores == total && cores == 0' \
  'u.used_cores >= total - 1 && cores == 0'
mutant ASC-NO-CORES "$asc" \
  'if (total != 0 && u.used_cores' \
  'if (total >= 0 && u.used_cores'
mutant ASC-MUTEX "$asc" \
  'if (mutex && u.used > 0) {' \
  'if (mutex && u.used > 1) {'
mutant ASC-PAIR "$asc" \
  'if (module.size() == 2)' \
  'if (module.size() >= 1)'
mutant ASC-PAIRS-ONLY-MULTI "$asc" \
  'rules.module_pairs && need > 1' \
  'rules.module_pairs && need > 0'
mutant ASC-TOPO-ENOUGH "$asc" \
  'if (need_topology && candidates.size() >= need) {' \
  'if (need_topology && candidates.size() > need) {'
mutant ASC-TOPO-ONE "$asc" \
  'if (need == 1)' \
  'if (need == 2)'

# Vastai fit (vendors §11.5): the mutex and die mode.
mutant VA-MUTEX "$va" \
  'if (u.used > 0 || (die_mode' \
  'if (u.used > 1 || (die_mode'
mutant VA-OCCUPIED "$va" \
  'if (in.devices[i].used > 0 && dies[i].card())' \
  'if (in.devices[i].used > 1 && dies[i].card())'
mutant VA-CARD-STOP "$va" \
  'if (!die_mode && collected.size() == need)' \
  'if (!die_mode && collected.size() + 1 == need)'
mutant VA-DIES-ENOUGH "$va" \
  'if (die_mode && collected.size() >= need) {' \
  'if (die_mode && collected.size() > need) {'
mutant VA-DIES-ONE "$va" \
  'if (need == 1)' \
  'if (need == 2)'

# Cambricon's MLUs from the node's capacity (vendors §4.3): one per 100 vcore.
mutant CAM-MLUS "$cam" \
  'i * kCoresPerMlu < *cards;' \
  'i * kCoresPerMlu <= *cards;'
mutant CAM-MAX-MLUS "$cam" \
  'if (*cards > kCoresPerMlu * kMaxMlus) {' \
  'if (*cards >= kCoresPerMlu * kMaxMlus) {'
mutant CAM-MEM-MAX "$cam" \
  'if (per_mlu > kInt32Max)' \
  'if (per_mlu >= kInt32Max)'

# NVIDIA MIG (HAMi §5.5): the smallest profile whose memory covers the
# request, on a placement overlapping no instance.
mutant MIG-PROFILE-OVER "$mig" \
  'if (p->memory_mb < memory)' \
  'if (p->memory_mb < memory - 1)'
mutant MIG-PROFILE-EXACT "$mig" \
  'if (p->memory_mb < memory)' \
  'if (p->memory_mb <= memory)'
mutant MIG-OVERLAP "$mig" \
  'return a.start < b_end && b.start < a_end;' \
  'return a.start <= b_end && b.start < a_end;'

# Device count against the node (HAMi §5.3, NodeInsufficientDevice), every
# vendor that leaves it to the host.
mutant NODE-COUNT-OVER "$nodefit" \
  'if (static_cast<size_t>(vr.request.count) > n && !plugin' \
  'if (static_cast<size_t>(vr.request.count) > n + 1 && !plugin'
mutant NODE-COUNT-EXACT "$nodefit" \
  'if (static_cast<size_t>(vr.request.count) > n && !plugin' \
  'if (static_cast<size_t>(vr.request.count) >= n && !plugin'

# The namespace quota rule admission and the scheduler's fit share (HAMi
# §2.5, §7.3): used + demand <= limit x scale.
mutant Q-OVER "$aq" \
  'non_negative(demand)) <=' \
  'non_negative(demand)) - 1 <='
mutant Q-EXACT "$aq" \
  'non_negative(demand)) <=' \
  'non_negative(demand)) <'
mutant Q-ZERO "$aq" \
  'saturating_mul(non_negative(limit), non_negative(scale));' \
  '(limit == 0 ? platform::kSaturated : saturating_mul(non_negative(limit), non_negative(scale)));'
mutant Q-FACTOR "$aqh" \
  'return memory_factor > 1 ? memory_factor : 1;' \
  'return memory_factor > 2 ? memory_factor : 1;'

# Namespace quota at admission (HAMi §2.5).
mutant AQ-CORES-FACTOR "$aq" \
  'return check(quota, resources.cores, demand.cores, 1);' \
  'return check(quota, resources.cores, demand.cores, 2);'
mutant AQ-COUNT "$aq" \
  'const int64_t memory = saturating_mul(r.count, non_negative(r.memory_mib));' \
  'const int64_t memory = saturating_mul(r.count - 1, non_negative(r.memory_mib));'

# Namespace quota inside the scheduler's fit (HAMi §7.3).
mutant SQ-MEM-ZERO "$sq" \
  'if (limits.memory_mib &&' \
  'if (limits.memory_mib && *limits.memory_mib > 0 &&'
mutant SQ-MEM-FACTOR "$sq" \
  'admission::memory_limit_scale(memory_factor)' \
  'admission::memory_limit_scale(memory_factor - 1)'
mutant SQ-CORES-ZERO "$sq" \
  'return !limits.cores || admission' \
  'return !limits.cores || *limits.cores == 0 || admission'
mutant SQ-CORES-SCALE "$sq" \
  'within_limit(*limits.cores, 1,' \
  'within_limit(*limits.cores, 2,'

# ---------------------------------------------------------------------------
# Which test targets a mutated file affects (target = binary under tests/).
suites_for() {
  case "$1" in
    plugins/devices/common/*)
      echo "devices/device_plugin_tests devices/ascend_plugin_tests devices/cambricon_plugin_tests" \
        "devices/vastai_plugin_tests scheduling/scheduling_tests"
      ;;
    plugins/devices/ascend/*) echo "devices/ascend_plugin_tests" ;;
    plugins/devices/cambricon/*) echo "devices/cambricon_plugin_tests" ;;
    plugins/devices/vastai/*) echo "devices/vastai_plugin_tests" ;;
    plugins/devices/*) echo "devices/device_plugin_tests scheduling/scheduling_tests" ;;
    host/scheduling/*) echo "scheduling/scheduling_tests" ;;
    host/admission/quota.*)
      echo "admission/admission_unit_tests admission/admission_service_tests scheduling/scheduling_tests"
      ;;
    host/admission/*) echo "admission/admission_unit_tests admission/admission_service_tests" ;;
    *)
      echo "mutation-check: no suites known for $1" >&2
      exit 2
      ;;
  esac
}

if [[ "${1:-}" == "--list" ]]; then
  for i in "${!ids[@]}"; do
    printf '%-18s %s\n    - %s\n    + %s\n' "${ids[$i]}" "${files[$i]}" "${originals[$i]}" \
      "${replacements[$i]}"
  done
  exit 0
fi

# The mutants to run: all, or those named.
selected=()
if [[ $# -eq 0 ]]; then
  selected=("${!ids[@]}")
else
  for want in "$@"; do
    found=""
    for i in "${!ids[@]}"; do
      [[ "${ids[$i]}" == "$want" ]] && found="$i"
    done
    if [[ -z "$found" ]]; then
      echo "mutation-check: unknown mutant $want (see --list)" >&2
      exit 2
    fi
    selected+=("$found")
  done
fi

# ---------------------------------------------------------------------------
# The scratch copy.
work="$(mktemp -d "${TMPDIR:-/tmp}/hami-mutation.XXXXXX")"
cleanup() {
  if [[ "${MUTATION_KEEP:-0}" == 1 ]]; then
    echo "mutation-check: scratch tree kept in $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
tree="$work/tree"
mkdir -p "$tree" "$work/orig" "$work/logs"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard) |
  while IFS= read -r -d '' path; do
    [[ -e "$repo/$path" ]] && printf '%s\0' "$path"
  done |
  (cd "$repo" && tar --null -T - -cf -) | (cd "$tree" && tar -xf -)

# The substitution: exact text, exactly one occurrence, or stop.
content_of() {
  IFS= read -r -d '' "$2" <"$1" || true
}
check_unique() {
  local file="$1" orig="$2" content rest
  content_of "$tree/$file" content
  if [[ "$content" != *"$orig"* ]]; then
    echo "mutation-check: original text not found in $file: $orig" >&2
    exit 2
  fi
  rest="${content#*"$orig"}"
  if [[ "$rest" == *"$orig"* ]]; then
    echo "mutation-check: original text occurs more than once in $file: $orig" >&2
    exit 2
  fi
}
apply_mutant() {
  local file="$1" orig="$2" repl="$3" content
  check_unique "$file" "$orig"
  content_of "$tree/$file" content
  printf '%s' "${content/"$orig"/"$repl"}" >"$tree/$file"
  if cmp -s "$tree/$file" "$work/orig/$(echo "$file" | tr / _)"; then
    echo "mutation-check: substitution left $file unchanged" >&2
    exit 2
  fi
}
restore() {
  # A fresh modification time, so the build recompiles the restored file.
  cat "$work/orig/$(echo "$1" | tr / _)" >"$tree/$1"
  touch "$tree/$1"
}

# Every original is checked before anything is built.
for i in "${selected[@]}"; do
  check_unique "${files[$i]}" "${originals[$i]}"
  cp "$tree/${files[$i]}" "$work/orig/$(echo "${files[$i]}" | tr / _)"
done

# ---------------------------------------------------------------------------
# The copy's own build directory (the dev preset: Debug, tests, -Werror).
configure=(cmake --preset dev -DHAMI_WERROR=ON)
if command -v ccache >/dev/null 2>&1; then
  configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  # Paths relative to the copy, so objects are shared across scratch copies.
  export CCACHE_BASEDIR="$tree" CCACHE_NOHASHDIR=true
fi
echo "mutation-check: configuring $tree/build/dev" >&2
(cd "$tree" && "${configure[@]}") >"$work/logs/configure.log" 2>&1 || {
  cat "$work/logs/configure.log" >&2
  exit 2
}

targets_of() {
  local s out=()
  for s in $1; do
    out+=("${s#*/}")
  done
  echo "${out[@]}"
}
build() {
  # shellcheck disable=SC2046 # target names are single words
  cmake --build "$tree/build/dev" -j"$jobs" --target $(targets_of "$1") >"$2" 2>&1
}

# Runs the suites; prints the failing tests (or the way a suite failed)
# and returns 1 when any suite failed.
run_suites() {
  local suites="$1" log="$2" s status failed=0 names
  for s in $suites; do
    status=0
    (cd "$tree/build/dev/tests/${s%/*}" &&
      timeout "$suite_timeout" "./${s#*/}" --gtest_brief=1) >"$log.${s#*/}" 2>&1 || status=$?
    [[ $status -eq 0 ]] && continue
    failed=1
    names="$(sed -n 's/^\[  FAILED  \] \([^ ,]*\.[^ ,]*\).*/\1/p' "$log.${s#*/}" | sort -u)"
    if [[ -n "$names" ]]; then
      echo "$names"
    elif [[ $status -eq 124 ]]; then
      echo "${s#*/} (timeout)"
    else
      echo "${s#*/} (exit $status)"
    fi
  done
  return $failed
}

all_suites=""
for i in "${selected[@]}"; do
  for s in $(suites_for "${files[$i]}"); do
    [[ " $all_suites " == *" $s "* ]] || all_suites+="${all_suites:+ }$s"
  done
done

echo "mutation-check: building and running the unmutated suites: $all_suites" >&2
build "$all_suites" "$work/logs/baseline-build.log" || {
  tail -50 "$work/logs/baseline-build.log" >&2
  exit 2
}
if ! baseline_failures="$(run_suites "$all_suites" "$work/logs/baseline")"; then
  echo "mutation-check: the unmutated tree fails its suites:" >&2
  echo "$baseline_failures" >&2
  exit 2
fi

killed=0
survived=0
for i in "${selected[@]}"; do
  id="${ids[$i]}"
  file="${files[$i]}"
  suites="$(suites_for "$file")"
  apply_mutant "$file" "${originals[$i]}" "${replacements[$i]}"
  if ! build "$suites" "$work/logs/$id-build.log"; then
    restore "$file"
    echo "mutation-check: mutant $id does not compile:" >&2
    grep -m5 'error' "$work/logs/$id-build.log" >&2 || true
    exit 2
  fi
  if failures="$(run_suites "$suites" "$work/logs/$id")"; then
    survived=$((survived + 1))
    printf 'SURVIVED %-18s %s: %s -> %s\n' "$id" "$file" "${originals[$i]}" "${replacements[$i]}"
  else
    killed=$((killed + 1))
    first="$(head -1 <<<"$failures")"
    more=$(($(wc -l <<<"$failures") - 1))
    extra=""
    [[ $more -gt 0 ]] && extra=" (+$more more)"
    printf 'killed   %-18s by %s%s\n' "$id" "$first" "$extra"
  fi
  restore "$file"
done

echo "mutation-check: $killed killed, $survived survived"
[[ $survived -eq 0 ]]
