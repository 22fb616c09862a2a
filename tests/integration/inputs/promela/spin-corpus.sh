#!/usr/bin/env bash
# spin-corpus.sh -- run SPIN on every example model in spin-examples/ and record
# its verdicts, plus a table of the Promela constructs each model uses.
#
# Usage:  tests/integration/inputs/promela/spin-corpus.sh [--constructs-only]
#
#   Needs only `spin` and `gcc` (plus coreutils, grep, sed, awk, timeout).
#   Environment overrides:
#     SPIN=spin  CC=gcc          tools to use
#     TIMEOUT=60                 wall-clock seconds per pan run
#     MODELS="a.pml b.pml"       only these models (debugging)
#     OUT_DIR=<dir>              where the TSVs go (default: spin-examples/)
#
# Outputs (tab separated, one header line, rows sorted by model name, C locale):
#   spin-examples/spin-results.tsv
#     model  parses  safety_verdict  states_por  states_noreduce  ltl_names
#     ltl_verdicts  notes
#   spin-examples/constructs.tsv
#     model  <one 0/1 column per construct, see CONSTRUCTS below>
#
# A "model" is every *.pml file in spin-examples/.  The *.h files there are the
# include files of the 1991-book models (upstream's convention: .h = not meant
# to be run standalone); they are copied next to each model so #include works.
#
# ---------------------------------------------------------------------------
# How each model is run (each in its own temporary directory)
# ---------------------------------------------------------------------------
#  parses          `spin -a model`; "yes" if it exits 0 and writes pan.c, else
#                  "no" and the first error line of spin goes into notes.
#  states_por      plain `spin -a`, `gcc -O2 -DSAFETY -o pan pan.c`,
#                  `timeout $TIMEOUT ./pan -m100000`; the "states, stored" count.
#  states_noreduce `spin -o1 -o2 -o3 -a` (no dataflow optimisation, no dead
#                  variable elimination, no statement merging), compiled with
#                  `-DSAFETY -DNOREDUCE` (no partial-order reduction); this is
#                  the statement-for-statement semantics.
#     Both safety runs add -DNOCLAIM when the model has an ltl formula or a
#     never claim, so that they check only assertions and invalid end states
#     (claims are checked separately below).  All compiles add -DMEMLIM=4096
#     (pan stops at 4 GiB instead of eating the machine).
#     A run whose first error is an xr/xs assertion ("partial order reduction
#     invalid") counts as violated; the xr/xs line goes into notes.
#     Retries (each noted in notes as "por:" / "nr:" followed by the options):
#       "max search depth too small"  -> -m1000000, then -m10000000
#       "VECTORSZ (is) too small"     -> -DVECTORSZ=4096, then 16384
#       "out of memory"               -> -DCOLLAPSE (once)
#     Never -DBITSTATE.
#     When a run stops at its first error (pan's default -c1), its state count
#     is only the states stored up to that error.
#  safety_verdict  combined over the two runs: "violated" if either run
#                  reports errors > 0 (the first error kind goes into notes);
#                  else "holds" if either run finished with errors: 0 and no
#                  depth truncation; else "timeout" (killed after $TIMEOUT s),
#                  "incomplete" (depth still too small or out of memory after
#                  all retries), "error" (gcc or pan failed), or "-" (no parse).
#                  If the two runs disagree, both are spelled out in notes.
#  ltl_names       the names spin -a prints for the model's ltl formulas
#                  ("ltl NAME: ..."; unnamed formulas are called ltl_0, ...),
#                  or "never" for a model with a never claim and no ltl.
#  ltl_verdicts    for each name, in order: `./pan -a -N name` (or `./pan -a`
#                  for "never"), compiled without -DSAFETY, from
#                  `spin -o1 -o2 -o3 -a` with -DNOREDUCE (statement-for-
#                  statement); "holds", "violated", "timeout", "incomplete" or
#                  "error".  The same check is run on the plain `spin -a` /
#                  POR build; a differing POR verdict is noted.  The error kind
#                  of a violated formula goes into notes.
#  notes           semicolon separated; also: preprocessor switches the model
#                  tests with #if/#ifdef/#ifndef (set with `spin -DX=...`),
#                  models without init or active proctypes, models reading
#                  STDIN, and a few hints taken from the models' own headers
#                  and upstream's README files (HINT table below).
#  Timing: a run that hits $TIMEOUT depends on the speed of the machine; all
#  other fields are deterministic (pan's search order is fixed).
#
# ---------------------------------------------------------------------------
# Construct detection heuristics (constructs.tsv)
# ---------------------------------------------------------------------------
#  Text scanned: the model plus, recursively, the local files it #includes.
#  Comments are removed with `gcc -fpreprocessed -dD -E -P -x c` (removes /* */
#  and // comments, keeps directives, expands nothing); `#if 0 ... #endif`
#  blocks are dropped; string literals are emptied ("..." -> "").  Text inside
#  other #if branches and inside c_code {...} blocks is still scanned.  Then:
#   chan            word `chan`
#   rendezvous      `[0] of` (spaces allowed)
#   run             `run NAME`
#   define/include  `#define` / `#include` directive (model file itself only
#                   for include; define over model + includes)
#   mtype, typedef, inline, atomic, d_step, unless, provided, priority,
#   timeout, hidden, unsigned, _pid, _nr_pr, np_, _last (last), STDIN, else
#                   the word itself
#   ltl             word `ltl`
#   never           `never {` or `never NAME {`
#   c_code          c_code, c_decl, c_expr, c_state or c_track
#   end_label, progress_label, accept_label
#                   `endX:` / `progressX:` / `acceptX:` (a label: name
#                   followed by one colon, not `::`)
#   remote_ref      `NAME@LABEL` or `NAME[e]@LABEL`, or `NAME[e]:var`
#   select, for, eval, enabled
#                   `select (`, `for (`, `eval (`, `enabled (` or `pc_value (`
#   printf          printf or printm
#   xr_xs           words `xr` / `xs`
#   sorted_send     `!!`;  random_receive `??`;  poll `?[` or `??[`
#   trace           `trace {` or `notrace {`
#   local_decl      a declaration (basic type, chan, mtype, pid or a typedef
#                   name, then a name) at the start of a statement inside the
#                   body of a proctype or init
#   array           a declaration whose declared name is followed by `[`
#                   (e.g. `byte a[3]`, `chan c[2] = ...`, `T x[N]`)
# ---------------------------------------------------------------------------
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DIR="$HERE/spin-examples"
OUT_DIR=${OUT_DIR:-$DIR}
SPIN=${SPIN:-spin}
CC=${CC:-gcc}
TIMEOUT=${TIMEOUT:-60}
RESULTS="$OUT_DIR/spin-results.tsv"
CONSTRUCTS_TSV="$OUT_DIR/constructs.tsv"

CONSTRUCTS_ONLY=0
if [ "${1:-}" = "--constructs-only" ]; then CONSTRUCTS_ONLY=1; fi

command -v "$SPIN" >/dev/null || { echo "spin not found" >&2; exit 1; }
command -v "$CC" >/dev/null || { echo "gcc not found" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/spin-corpus.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Hints from the models' own header comments and from upstream's
# Examples/README_tests.txt and Examples/Book_1991/README.txt.
declare -A HINT=(
  [p108.pml]="header: large run; use cc -DVECTORSZ=2048 and pan -m15000"
  [App.F.pftp.pml]="upstream README: full pftp spec, not expected to verify exhaustively"
  [ltl_gen.pml]="header: compile pan with -DPRINTF"
  [wordcount.pml]="header: try spin -A"
  [hello.pml]="upstream README: simulation test (spin hello.pml)"
  [p95.1.pml]="upstream README: simulation example (hello world)"
  [leader0.pml]="upstream README test 6: pan -c0 -n with and without -DNOREDUCE"
  [priorities.pml]="upstream README: simulation test (spin -o6 -p -g -u10000); a[] is write-only, so default dead-variable elimination makes the state space finite, with -o2 it grows without bound"
  [patterns.pml]="uses the LTL next operator X, which this spin build rejects (needs a spin built with -DNXT)"
  [loops.pml]="upstream README tests 2-5 (pan, pan -a, pan -l with -DNP)"
)

CONSTRUCTS=(chan rendezvous run define include mtype ltl never typedef inline
  atomic d_step unless provided priority c_code timeout end_label remote_ref
  select for printf hidden xr_xs sorted_send random_receive poll eval else
  unsigned local_decl array _pid _nr_pr enabled np_ progress_label
  accept_label trace last STDIN)

# ---------------------------------------------------------------- helpers
first() { grep -m1 "$@" || true; }
one_line() { tr '\t\r\n' '   ' | sed -e 's/  */ /g' -e 's/^ //' -e 's/ $//'; }

# strip comments and #if 0 blocks from one file (strings kept)
strip_comments() {
  "$CC" -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null | awk '
    /^[ \t]*#[ \t]*if(def|ndef)?[ \t]/ { if (skip) { skip++; next } }
    /^[ \t]*#[ \t]*if[ \t]+0[ \t]*$/   { if (!skip) { skip = 1; next } }
    /^[ \t]*#[ \t]*endif/              { if (skip) { skip--; next } }
    !skip'
}
# ... and also empty the string literals
strip_file() { strip_comments "$1" | sed -E 's/"([^"\\]|\\.)*"/""/g'; }

# model text + recursively included local files, stripped
model_text() {
  local f=$1 seen=${2:-} inc
  strip_file "$DIR/$f"
  for inc in $(strip_comments "$DIR/$f" | sed -nE 's/^[ \t]*#[ \t]*include[ \t]*"([^"]+)".*/\1/p'); do
    case " $seen " in *" $inc "*) continue ;; esac
    if [ -f "$DIR/$inc" ]; then
      seen="$seen $inc"
      model_text "$inc" "$seen"
    fi
  done
}

# bodies of proctypes and init (text between the braces), one chunk per line
proc_bodies() {
  awk '
  { text = text $0 "\n" }
  END {
    n = length(text); depth = 0; pending = 0; inbody = 0; buf = ""; word = ""
    for (i = 1; i <= n; i++) {
      c = substr(text, i, 1)
      if (c ~ /[A-Za-z0-9_]/) { word = word c } else {
        if (depth == 0 && (word == "proctype" || word == "init")) pending = 1
        if (depth == 0 && (word == "typedef" || word == "inline" || word == "never" || word == "trace" || word == "notrace" || word == "c_code" || word == "c_decl" || word == "c_state" || word == "ltl")) pending = 0
        word = ""
      }
      if (c == "{") {
        if (depth == 0 && pending) { inbody = 1; pending = 0; depth++; continue }
        depth++
      } else if (c == "}") {
        depth--
        if (depth == 0 && inbody) { inbody = 0; print buf; buf = ""; continue }
      }
      if (inbody) buf = buf (c == "\n" ? " " : c)
    }
  }'
}

has() { grep -Eq -- "$1" <<<"$2"; }

detect_constructs() {   # $1 = model file name; prints tab-separated 0/1 row
  local f=$1 text own bodies typedefs types v
  text=$(model_text "$f")
  own=$(strip_file "$DIR/$f")
  typedefs=$(sed -nE 's/.*\btypedef[ \t]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' <<<"$text" | sort -u | paste -sd'|' -)
  types="bit|bool|byte|short|int|unsigned|chan|mtype|pid${typedefs:+|$typedefs}"
  bodies=$(proc_bodies <<<"$text")
  declare -A C=()
  has '\bchan\b' "$text" && C[chan]=1
  has '\[[[:space:]]*0[[:space:]]*\][[:space:]]*of\b' "$text" && C[rendezvous]=1
  has '\brun[[:space:]]+[A-Za-z_]' "$text" && C[run]=1
  has '^[[:space:]]*#[[:space:]]*define\b' "$text" && C[define]=1
  has '^[[:space:]]*#[[:space:]]*include\b' "$own" && C[include]=1
  has '\bmtype\b' "$text" && C[mtype]=1
  has '\bltl\b' "$text" && C[ltl]=1
  has '\bnever[[:space:]]*([A-Za-z_][A-Za-z0-9_]*[[:space:]]*)?\{' "$text" && C[never]=1
  for w in typedef inline atomic d_step unless provided priority timeout hidden unsigned _pid _nr_pr np_ STDIN else; do
    has "\\b$w\\b" "$text" && C[$w]=1
  done
  has '\b_last\b' "$text" && C[last]=1
  has '\bc_(code|decl|expr|state|track)\b' "$text" && C[c_code]=1
  has '\bend[A-Za-z0-9_]*[[:space:]]*:([^:]|$)' "$text" && C[end_label]=1
  has '\bprogress[A-Za-z0-9_]*[[:space:]]*:([^:]|$)' "$text" && C[progress_label]=1
  has '\baccept[A-Za-z0-9_]*[[:space:]]*:([^:]|$)' "$text" && C[accept_label]=1
  has '[]A-Za-z0-9_][[:space:]]*@[[:space:]]*[A-Za-z_]' "$text" && C[remote_ref]=1
  has '\b[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\[[^]]*\][[:space:]]*:[[:space:]]*[A-Za-z_]' "$text" && C[remote_ref]=1
  has '\bselect[[:space:]]*\(' "$text" && C[select]=1
  has '\bfor[[:space:]]*\(' "$text" && C[for]=1
  has '\bprint[fm]\b' "$text" && C[printf]=1
  has '\bx[rs]\b' "$text" && C[xr_xs]=1
  has '!!' "$text" && C[sorted_send]=1
  has '\?\?' "$text" && C[random_receive]=1
  has '\?[[:space:]]*\[' "$text" && C[poll]=1
  has '\beval[[:space:]]*\(' "$text" && C[eval]=1
  has '\b(enabled|pc_value)[[:space:]]*\(' "$text" && C[enabled]=1
  has '\b(no)?trace[[:space:]]*\{' "$text" && C[trace]=1
  has "(^|[;{}>:])[[:space:]]*(hidden[[:space:]]+|local[[:space:]]+|show[[:space:]]+)?($types)\\b([[:space:]]*:[[:space:]]*[A-Za-z_][A-Za-z0-9_]*)?[[:space:]]+[A-Za-z_]" "$bodies" && C[local_decl]=1
  has "\\b($types)\\b[^;{}()]*\\b[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\\[" "$text" && C[array]=1
  local row="$f"
  for v in "${CONSTRUCTS[@]}"; do row="$row	${C[$v]:-0}"; done
  printf '%s\n' "$row"
}

# --------------------------------------------------------------- pan runs
# run_pan DIR "CFLAGS" "PANARGS" BIN  -> sets RV (verdict) RS (states) RK (kind) RD (deviations)
run_pan() {
  local d=$1 cflags=$2 args=$3 bin=$4 m=100000 extra="" vsz="" rc tries=0 errs
  RV=error RS=- RK="" RD=""
  while :; do
    tries=$((tries + 1))
    if ! (cd "$d" && timeout 600 "$CC" -O2 -DMEMLIM=4096 $cflags $extra $vsz -o "$bin" pan.c) >"$d/$bin.cc" 2>&1; then
      RV=error; RK="gcc: $(first -i 'error' "$d/$bin.cc" | one_line | cut -c1-120)"; return
    fi
    rc=0
    (cd "$d" && timeout "$TIMEOUT" "./$bin" -m$m $args) >"$d/$bin.out" 2>&1 || rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then RV=timeout; RS=-; return; fi
    if grep -Eq 'VECTORSZ (is )?too small' "$d/$bin.out" && [ "$vsz" != "-DVECTORSZ=16384" ]; then
      if [ -z "$vsz" ]; then vsz="-DVECTORSZ=4096"; else vsz="-DVECTORSZ=16384"; fi
      continue
    fi
    if grep -q 'out of memory' "$d/$bin.out" && [ -z "$extra" ]; then extra="-DCOLLAPSE"; continue; fi
    if grep -q 'max search depth too small' "$d/$bin.out" && [ $m -lt 10000000 ] \
       && ! grep -Eq 'errors: [1-9]' "$d/$bin.out"; then
      m=$((m * 10)); continue
    fi
    break
  done
  RD=$(echo "$vsz $extra $([ $m -ne 100000 ] && echo "-m$m")" | one_line)
  errs=$(sed -nE 's/.*errors: ([0-9]+).*/\1/p' "$d/$bin.out" | awk 'NR==1')
  RS=$(sed -nE 's/^[[:space:]]*([0-9]+) states, stored.*/\1/p' "$d/$bin.out" | awk 'NR==1')
  RS=${RS:--}
  if [ -z "$errs" ]; then
    RV=error
    if grep -q 'out of memory' "$d/$bin.out"; then RV=incomplete; RK="out of memory"; return; fi
    RK="pan: $(first -v '^[[:space:]]*$' "$d/$bin.out" | one_line | cut -c1-120) (rc $rc)"
    return
  fi
  if [ "$errs" -gt 0 ]; then
    RV=violated
    RK=$(first -E '^pan:[0-9]+: ' "$d/$bin.out" | sed -E -e 's/^pan:[0-9]+: //' -e 's/ \(at depth [0-9]+\)//' | one_line | cut -c1-100)
    RK="${RK:-errors: $errs}"
    local xl
    xl=$(first -E '^pan: x[rs] assertion violated' "$d/$bin.out" | sed 's/^pan: //' | one_line)
    if [ -n "$xl" ]; then RK="$xl: $RK"; fi
  elif grep -q 'max search depth too small' "$d/$bin.out"; then
    RV=incomplete; RK="max search depth too small at -m$m"
  elif grep -q 'out of memory' "$d/$bin.out"; then
    RV=incomplete; RK="out of memory"
  else
    RV=holds
  fi
}

combine() {  # combine POR and NOREDUCE safety verdicts
  local a=$1 b=$2
  if [ "$a" = violated ] || [ "$b" = violated ]; then echo violated
  elif [ "$a" = holds ] || [ "$b" = holds ]; then echo holds
  elif [ "$a" = timeout ] || [ "$b" = timeout ]; then echo timeout
  elif [ "$a" = incomplete ] || [ "$b" = incomplete ]; then echo incomplete
  else echo error; fi
}

process_model() {   # $1 = model file name; prints the results row
  local f=$1 w notes=() parses=no sv=- spor=- snr=- lnames=- lverd=- text
  local vpor knr kpor vnr names=() n i lv=() rv
  w="$WORK/${f}.d"
  mkdir -p "$w/por" "$w/nr"
  for sub in por nr; do
    cp "$DIR/$f" "$w/$sub/"
    cp "$DIR"/*.h "$w/$sub/" 2>/dev/null || true
  done
  text=$(model_text "$f")

  # static notes
  [ -n "${HINT[$f]:-}" ] && notes+=("${HINT[$f]}")
  local sw
  sw=$(grep -hE '^[[:space:]]*#[[:space:]]*if' "$DIR/$f" \
        | sed -E -e 's/^[[:space:]]*#[[:space:]]*(ifdef|ifndef|if)//' -e 's/defined//g' \
        | grep -oE '\b[A-Za-z_][A-Za-z0-9_]*\b' | sort -u | paste -sd, - || true)
  local sym
  for sym in ${sw//,/ }; do
    if grep -Eq "^[[:space:]]*#[[:space:]]*ifndef[[:space:]]+$sym\b" "$DIR/$f"; then
      notes+=("cpp switch $sym: default set in file, spin -D$sym=... overrides")
    elif grep -Eq "^[[:space:]]*#[[:space:]]*define[[:space:]]+$sym\b" "$DIR/$f"; then
      notes+=("cpp switch $sym: set in file")
    else
      notes+=("cpp switch $sym: unset, spin -D$sym sets it")
    fi
  done
  if ! grep -Eq '\binit\b|\bactive\b' <<<"$text"; then notes+=("no init or active proctype"); fi
  grep -q '\bSTDIN\b' <<<"$text" && notes+=("reads STDIN (meant for simulation)")

  # parse
  if (cd "$w/por" && timeout 120 "$SPIN" -a "$f") >"$w/spin_a.out" 2>&1 && [ -f "$w/por/pan.c" ]; then
    parses=yes
  else
    notes+=("spin: $(first -iE 'error|syntax|expected|saw' "$w/spin_a.out" | one_line | cut -c1-160)")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$f" no - - - - - "$(IFS=';'; echo "${notes[*]}" | sed 's/;/; /g')"
    return
  fi
  (cd "$w/nr" && timeout 120 "$SPIN" -o1 -o2 -o3 -a "$f") >"$w/spin_nr.out" 2>&1 || notes+=("spin -o1 -o2 -o3 -a failed")

  mapfile -t names < <(sed -nE 's/^ltl ([^:]+):.*/\1/p' "$w/spin_a.out")
  if [ ${#names[@]} -eq 0 ] && grep -Eq '\bnever[[:space:]]*([A-Za-z_][A-Za-z0-9_]*[[:space:]]*)?\{' <<<"$text"; then
    names=(never)
  fi
  local noclaim=""
  [ ${#names[@]} -gt 0 ] && noclaim="-DNOCLAIM"

  # safety
  run_pan "$w/por" "-DSAFETY $noclaim" "" pan; vpor=$RV; spor=$RS; kpor=$RK
  [ -n "$RD" ] && notes+=("por: $RD")
  if [ -f "$w/nr/pan.c" ]; then
    run_pan "$w/nr" "-DSAFETY -DNOREDUCE $noclaim" "" pan; vnr=$RV; snr=$RS; knr=$RK
    [ -n "$RD" ] && notes+=("nr: $RD")
  else vnr=error; knr="no pan.c"; fi
  sv=$(combine "$vpor" "$vnr")
  if [ "$vpor" = "$vnr" ]; then
    [ -n "$kpor" ] && notes+=("$kpor")
    [ "$knr" != "$kpor" ] && [ -n "$knr" ] && notes+=("nr: $knr")
  else
    notes+=("por: $vpor${kpor:+ ($kpor)}" "nr: $vnr${knr:+ ($knr)}")
  fi
  [ "$sv" = violated ] && notes+=("state counts stop at first error")

  # claims
  if [ ${#names[@]} -gt 0 ]; then
    for n in "${names[@]}"; do
      local arg="-a -N $n"
      [ "$n" = never ] && arg="-a"
      run_pan "$w/nr" "-DNOREDUCE" "$arg" pan_ltl; rv=$RV
      lv+=("$rv")
      [ -n "$RK" ] && notes+=("$n: $RK")
      [ -n "$RD" ] && notes+=("$n nr: $RD")
      run_pan "$w/por" "" "$arg" pan_ltl
      if [ "$RV" != "$rv" ]; then notes+=("$n por: $RV${RK:+ ($RK)}"); fi
    done
    lnames=$(IFS=,; echo "${names[*]}")
    lverd=$(IFS=,; echo "${lv[*]}")
  fi

  local nt="-"
  [ ${#notes[@]} -gt 0 ] && nt=$(printf '%s; ' "${notes[@]}" | sed 's/; $//' | one_line)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$f" "$parses" "$sv" "$spor" "$snr" "$lnames" "$lverd" "$nt"
  rm -rf "$w"
}

# ----------------------------------------------------------------- main
if [ -n "${MODELS:-}" ]; then
  read -r -a LIST <<<"$MODELS"
else
  mapfile -t LIST < <(cd "$DIR" && ls -1 -- *.pml | sort)
fi

mkdir -p "$OUT_DIR"
{
  printf 'model'; printf '\t%s' "${CONSTRUCTS[@]}"; printf '\n'
  for f in "${LIST[@]}"; do detect_constructs "$f"; done
} >"$CONSTRUCTS_TSV.tmp"
mv "$CONSTRUCTS_TSV.tmp" "$CONSTRUCTS_TSV"
echo "wrote $CONSTRUCTS_TSV" >&2
[ $CONSTRUCTS_ONLY -eq 1 ] && exit 0

{
  printf 'model\tparses\tsafety_verdict\tstates_por\tstates_noreduce\tltl_names\tltl_verdicts\tnotes\n'
  for f in "${LIST[@]}"; do
    echo "[$(date +%T)] $f" >&2
    process_model "$f"
  done
} >"$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
echo "wrote $RESULTS" >&2
