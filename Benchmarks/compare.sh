#!/usr/bin/env bash
# Runs W1, W3 (instructions and allocations, from callgrind) and W6 (bytes per pending promise)
# for ActorPromise and SwiftNIO in one go, and prints one table with ratios against the budgets in Benchmarks/README.md.
#
# Instruction counts come from valgrind's callgrind: they are stable on a shared machine where
# wall time is not. Each workload runs at two sizes; the difference divided by the extra work is
# the cost per unit, so start-up (threads, event loop, dyld) cancels out.
#
#   Benchmarks/compare.sh            # full table
#   SMALL=5 LARGE=25 compare.sh      # fewer iterations (faster, a little noisier)
set -euo pipefail
cd "$(dirname "$0")"
SMALL=${SMALL:-10}
LARGE=${LARGE:-60}
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)"; exit 1; }
source ./callgrind.sh
THRESHOLDS=Thresholds/allocations.txt

# per_unit LIB WORKLOAD UNITS_PER_ITERATION -> "instructions_per_unit allocs_per_unit" at SMALL, LARGE
per_unit() { per_unit_sized "$1" "$2" "$3" "$SMALL" "$LARGE"; }

read -r ap_w1_i ap_w1_m < <(per_unit actorpromise w1 100)
read -r ai_w1_i ai_w1_m < <(per_unit actorpromise-inline w1 100)
read -r nio_w1_i nio_w1_m < <(per_unit nio w1 100)
read -r ap_w3_i ap_w3_m < <(per_unit actorpromise w3 1)
read -r ai_w3_i ai_w3_m < <(per_unit actorpromise-inline w3 1)
read -r nio_w3_i nio_w3_m < <(per_unit nio w3 1)
read -r ap_w1q_i ap_w1q_m < <(per_unit actorpromise w1q 100)
read -r ap_w1o_i ap_w1o_m < <(per_unit actorpromise w1o 100)
read -r ap_w2_i ap_w2_m < <(per_unit actorpromise w2 1000)
read -r ap_w2c_i ap_w2c_m < <(per_unit actorpromise w2c 1000)
read -r tl_w1_i tl_w1_m < <(per_unit actorpromise-tasklocal w1 100)
read -r tl_w2_i tl_w2_m < <(per_unit actorpromise-tasklocal w2 1000)
read -r tr_w1_i tr_w1_m < <(per_unit actorpromise-traced w1 100)
read -r f_w1_i f_w1_m < <(per_unit actorpromise w1f 100)
read -r trf_w1_i trf_w1_m < <(per_unit actorpromise-traced w1f 100)
read -r pd_w1_i pd_w1_m < <(MEASURE=$PENDING_BIN per_unit on w1 100)
read -r po_w1_i po_w1_m < <(MEASURE=$PENDING_BIN per_unit off w1 100)
read -r nio_w2_i nio_w2_m < <(per_unit nio w2 1000)
SMALL_SAVED=$SMALL; LARGE_SAVED=$LARGE; SMALL=$((SMALL * 100)); LARGE=$((LARGE * 100))
read -r ap_w5_i ap_w5_m < <(per_unit actorpromise w5 1)
read -r cont_w5_i cont_w5_m < <(per_unit continuation w5 1)
read -r chk_w5_i chk_w5_m < <(per_unit checked-continuation w5 1)
# W5x with one mode (the awaiter suspended before another thread settles; SuspendedAwaitWorkloads):
# the library's await, the bare continuation it is built on, and that continuation inside
# withTaskCancellationHandler, which B2 needs. Each is one number from run to run.
read -r ap_w5s_i ap_w5s_m < <(per_unit actorpromise w5s 1)
read -r cont_w5s_i cont_w5s_m < <(per_unit continuation w5s 1)
read -r ccont_w5s_i ccont_w5s_m < <(per_unit cancellable-continuation w5s 1)
SMALL=$SMALL_SAVED; LARGE=$LARGE_SAVED; SMALL=$((SMALL * 10)); LARGE=$((LARGE * 10))
read -r ap_w5x_i ap_w5x_m < <(per_unit actorpromise w5x 1)
read -r cont_w5x_i cont_w5x_m < <(per_unit continuation w5x 1)
read -r chk_w5x_i chk_w5x_m < <(per_unit checked-continuation w5x 1)
read -r task_w5x_i task_w5x_m < <(per_unit task w5x 1)
read -r nio_w5x_i nio_w5x_m < <(per_unit nio w5x 1)
# Against plain Swift concurrency (MeasureConcurrency): a value made on DispatchQueue.global() and
# awaited from the main actor, the promise made with pending() and with a body, against a checked
# and an unsafe continuation inside a cancellation handler. From the main actor the count is one
# number from run to run; awaited from a task, dispatch's worker threads make it move by
# thousands (wallclock.py times those).
read -r ap_rtm_i ap_rtm_m < <(MEASURE=$CONCURRENCY_BIN per_unit actorpromise rtm 1)
read -r ap_rtbm_i ap_rtbm_m < <(MEASURE=$CONCURRENCY_BIN per_unit actorpromise rtbm 1)
read -r cc_rtm_i cc_rtm_m < <(MEASURE=$CONCURRENCY_BIN per_unit checked-cancellable rtm 1)
read -r uc_rtm_i uc_rtm_m < <(MEASURE=$CONCURRENCY_BIN per_unit unsafe-cancellable rtm 1)
read -r ap_w7_i ap_w7_m < <(per_unit actorpromise w7 1)
read -r dq_w7_i dq_w7_m < <(per_unit dispatch w7 1)
SMALL=$SMALL_SAVED; LARGE=$LARGE_SAVED
SMALL=1; LARGE=4
# 1,000 values fanned in (then + all against a TaskGroup), 1,000 sequential steps (a then chain
# against awaited calls alternating between two actors).
read -r ap_fanin_i ap_fanin_m < <(MEASURE=$CONCURRENCY_BIN per_unit actorpromise fanin 1000)
read -r tg_fanin_i tg_fanin_m < <(MEASURE=$CONCURRENCY_BIN per_unit taskgroup fanin 1000)
read -r ap_seq_i ap_seq_m < <(MEASURE=$CONCURRENCY_BIN per_unit actorpromise seq 1000)
read -r ac_seq_i ac_seq_m < <(MEASURE=$CONCURRENCY_BIN per_unit actors seq 1000)
read -r ap_w4_i ap_w4_m < <(per_unit actorpromise w4 1)
read -r nio_w4_i nio_w4_m < <(per_unit nio w4 1)
SMALL=$SMALL_SAVED; LARGE=$LARGE_SAVED
ap_w6=$("$BIN" w6 actorpromise 200000)
pd_w6=$("$PENDING_BIN" w6 on 200000); po_w6=$("$PENDING_BIN" w6 off 200000)
nio_w6=$("$BIN" w6 nio 200000)
ap_w6h0=$("$BIN" w6h0 actorpromise 200000); nio_w6h0=$("$BIN" w6h0 nio 200000)
ap_w6h10=$("$BIN" w6h10 actorpromise 50000); nio_w6h10=$("$BIN" w6h10 nio 50000)
# map(maxConcurrency: 8) over a lazy sequence: resident bytes per element at 10^5 and 10^6 (the
# result slot is 16 bytes; the input is read one element per free slot, never copied).
ap_maplazy5=$("$BIN" maplazy actorpromise 100000); ap_maplazy6=$("$BIN" maplazy actorpromise 1000000)
# A recursive promise loop (`loop(n) = step.then { loop(n - 1) }`, the step fulfilled at once):
# resident bytes per pending level at 10^4 to 10^7 levels, and instructions and allocations per
# iteration (callgrind, 1,000 and 6,000 levels). PromiseKit is not on this machine.
LOOP_LEVELS="10000 100000 1000000 10000000"
declare -A ap_loop nio_loop
for n in $LOOP_LEVELS; do
    ap_loop[$n]=$("$BIN" loop actorpromise "$n"); nio_loop[$n]=$("$BIN" loop nio "$n")
done
read -r ap_loop_i ap_loop_m < <(per_unit_sized actorpromise loop 1 1000 6000)
read -r nio_loop_i nio_loop_m < <(per_unit_sized nio loop 1 1000 6000)
# The shapes of NIO's own allocation guards, handlers synchronous on both sides (per iteration).
read -r ap_cb_i ap_cb_m < <(per_unit_sized actorpromise callbacks 1 100 1000)
read -r nio_cb_i nio_cb_m < <(per_unit_sized nio callbacks 1 100 1000)
read -r ap_erase_i ap_erase_m < <(per_unit_sized actorpromise erase 1 100 1000)
read -r nio_erase_i nio_erase_m < <(per_unit_sized nio erase 1 100 1000)

ratio() { python3 -c "print(f'{$1/$2:.2f}x')"; }
verdict() { python3 -c "print('pass' if $1 <= $2 else 'FAIL')"; }

printf '\n%-46s %12s %12s %8s %8s %6s\n' "measure" "ActorPromise" "reference" "ratio" "bar" "result"
row() { printf '%-46s %12s %12s %8s %8s %6s\n' "$@"; }
# Bars: the budgets of Benchmarks/README.md ("The budgets"). "(info)" rows have none.
row "W1 instr/link, global pool vs NIO on loop" "$ap_w1_i" "$nio_w1_i" "$(ratio "$ap_w1_i" "$nio_w1_i")" "<=1.0x" "$(verdict "$ap_w1_i/$nio_w1_i" 1.0)"
row "W1 instr/link, inline vs NIO on loop" "$ai_w1_i" "$nio_w1_i" "$(ratio "$ai_w1_i" "$nio_w1_i")" "(info)" ""
row "W1 allocations/link (global pool)" "$ap_w1_m" "$nio_w1_m" "$(ratio "$ap_w1_m" "$nio_w1_m")" "<=1.05" "$(verdict "$ap_w1_m" 1.05)"
row "W3 instr/promise, global pool vs NIO" "$ap_w3_i" "$nio_w3_i" "$(ratio "$ap_w3_i" "$nio_w3_i")" "<=1.0x" "$(verdict "$ap_w3_i/$nio_w3_i" 1.0)"
row "W3 instr/promise, inline vs NIO" "$ai_w3_i" "$nio_w3_i" "$(ratio "$ai_w3_i" "$nio_w3_i")" "(info)" ""
row "W3 allocations/promise (global pool)" "$ap_w3_m" "$nio_w3_m" "$(ratio "$ap_w3_m" "$nio_w3_m")" "(info)" ""
row "W1 instr/link on a SerialQueue vs NIO" "$ap_w1q_i" "$nio_w1_i" "$(ratio "$ap_w1q_i" "$nio_w1_i")" "(info)" ""
row "W1 instr/link on an OperationExecutor vs NIO" "$ap_w1o_i" "$nio_w1_i" "$(ratio "$ap_w1o_i" "$nio_w1_i")" "(info)" ""
row "W2 instr/handler, fan-out of 1,000 vs NIO" "$ap_w2_i" "$nio_w2_i" "$(ratio "$ap_w2_i" "$nio_w2_i")" "<=1.5x" "$(verdict "$ap_w2_i/$nio_w2_i" 1.5)"
row "W2c instr/handler, whenComplete vs NIO whenSuccess" "$ap_w2c_i" "$nio_w2_i" "$(ratio "$ap_w2c_i" "$nio_w2_i")" "(info)" ""
row "W1 instr/link, 1 task-local key (R15) vs none" "$tl_w1_i" "$ap_w1_i" "$(ratio "$tl_w1_i" "$ap_w1_i")" "(info)" ""
row "W1 allocations/link, 1 task-local key vs none" "$tl_w1_m" "$ap_w1_m" "$(ratio "$tl_w1_m" "$ap_w1_m")" "(info)" ""
row "W2 instr/handler, 1 task-local key vs none" "$tl_w2_i" "$ap_w2_i" "$(ratio "$tl_w2_i" "$ap_w2_i")" "(info)" ""
row "W2 allocations/handler, 1 task-local key vs none" "$tl_w2_m" "$ap_w2_m" "$(ratio "$tl_w2_m" "$ap_w2_m")" "(info)" ""
row "W1 instr/link, failure traces on (R16) vs off" "$tr_w1_i" "$ap_w1_i" "$(ratio "$tr_w1_i" "$ap_w1_i")" "(info)" ""
row "W1 allocations/link, traces on vs off" "$tr_w1_m" "$ap_w1_m" "$(ratio "$tr_w1_m" "$ap_w1_m")" "(info)" ""
row "W1 rejected: instr/link, traces on vs off" "$trf_w1_i" "$f_w1_i" "$(ratio "$trf_w1_i" "$f_w1_i")" "(info)" ""
row "W1 rejected: allocations/link, traces on vs off" "$trf_w1_m" "$f_w1_m" "$(ratio "$trf_w1_m" "$f_w1_m")" "(info)" ""
row "W1 instr/link, pending tracking on vs off" "$pd_w1_i" "$po_w1_i" "$(ratio "$pd_w1_i" "$po_w1_i")" "(info)" ""
row "W1 allocations/link, pending tracking on vs off" "$pd_w1_m" "$po_w1_m" "$(ratio "$pd_w1_m" "$po_w1_m")" "(info)" ""
row "W5 await of a settled promise vs unsafe cont." "$ap_w5_i" "$cont_w5_i" "$(ratio "$ap_w5_i" "$cont_w5_i")" "<=2.0x" "$(verdict "$ap_w5_i/$cont_w5_i" 2.0)"
row "W5 checked continuation, same (info)" "$chk_w5_i" "$cont_w5_i" "$(ratio "$chk_w5_i" "$cont_w5_i")" "(info)" ""
row "W5x instr/await, other thread (bar 6,500)" "$ap_w5x_i" "6500" "$(ratio "$ap_w5x_i" 6500)" "<=6500" "$(verdict "$ap_w5x_i" 6500)"
row "W5x same vs NIO get() of a loop's future" "$ap_w5x_i" "$nio_w5x_i" "$(ratio "$ap_w5x_i" "$nio_w5x_i")" "<=1.0x" "$(verdict "$ap_w5x_i/$nio_w5x_i" 1.0)"
row "W5x same vs checked continuation (info)" "$ap_w5x_i" "$chk_w5x_i" "$(ratio "$ap_w5x_i" "$chk_w5x_i")" "(info)" ""
row "W5x same vs unsafe continuation (info)" "$ap_w5x_i" "$cont_w5x_i" "$(ratio "$ap_w5x_i" "$cont_w5x_i")" "(info)" ""
row "W5x Task {} + await vs unsafe cont. (info)" "$task_w5x_i" "$cont_w5x_i" "$(ratio "$task_w5x_i" "$cont_w5x_i")" "(info)" ""
w5s_share=$((ap_w5s_i - cont_w5s_i)); w5s_floor=$((ccont_w5s_i - cont_w5s_i)); w5s_rest=$((ap_w5s_i - ccont_w5s_i))
row "W5x library share, suspended: await - unsafe cont." "$w5s_share" "$cont_w5s_i" "" "<=1500" "$(verdict "$w5s_share" 1500)"
row "  of it withTaskCancellationHandler (B2 floor)" "$w5s_floor" "$ccont_w5s_i" "" "(info)" ""
row "  of it promise, resolver, observer, settlement" "$w5s_rest" "$ap_w5s_m" "" "(info)" ""
row "await from main actor: pending() vs checked+cancel" "$ap_rtm_i" "$cc_rtm_i" "$(ratio "$ap_rtm_i" "$cc_rtm_i")" "(info)" ""
row "  with a body vs the same" "$ap_rtbm_i" "$cc_rtm_i" "$(ratio "$ap_rtbm_i" "$cc_rtm_i")" "(info)" ""
row "  pending() vs unsafe cont.+cancel" "$ap_rtm_i" "$uc_rtm_i" "$(ratio "$ap_rtm_i" "$uc_rtm_i")" "(info)" ""
row "  allocations: pending() vs checked+cancel" "$ap_rtm_m" "$cc_rtm_m" "$(ratio "$ap_rtm_m" "$cc_rtm_m")" "(info)" ""
row "fan-in of 1,000: instr/value, then+all vs TaskGroup" "$ap_fanin_i" "$tg_fanin_i" "$(ratio "$ap_fanin_i" "$tg_fanin_i")" "(info)" ""
row "1,000 steps: instr/step, then chain vs actor calls" "$ap_seq_i" "$ac_seq_i" "$(ratio "$ap_seq_i" "$ac_seq_i")" "(info)" ""
row "W4 instr per all(10,000) vs whenAllSucceed" "$ap_w4_i" "$nio_w4_i" "$(ratio "$ap_w4_i" "$nio_w4_i")" "<=0.5x" "$(verdict "$ap_w4_i/$nio_w4_i" 0.5)"
row "W7 instr/hop, SerialQueue vs DispatchQueue" "$ap_w7_i" "$dq_w7_i" "$(ratio "$ap_w7_i" "$dq_w7_i")" "<=1.0x" "$(verdict "$ap_w7_i/$dq_w7_i" 1.0)"
row "W6 bytes/pending promise + 1 handler (RSS)" "$ap_w6" "$nio_w6" "$(ratio "$ap_w6" "$nio_w6")" "<=384" "$(verdict "$ap_w6" 384)"
row "W6 bytes/pending promise + 1 handler, pending tracking on vs off" "$pd_w6" "$po_w6" "$(ratio "$pd_w6" "$po_w6")" "(info)" ""
row "W6 same, 0 handlers (info)" "$ap_w6h0" "$nio_w6h0" "$(ratio "$ap_w6h0" "$nio_w6h0")" "(info)" ""
row "W6 same, 10 handlers (info)" "$ap_w6h10" "$nio_w6h10" "$(ratio "$ap_w6h10" "$nio_w6h10")" "(info)" ""
row "lazy map, 8 at once: bytes/element 10^6 vs 10^5" "$ap_maplazy6" "$ap_maplazy5" "$(ratio "$ap_maplazy6" "$ap_maplazy5")" "(info)" ""
for n in $LOOP_LEVELS; do
    row "recursion: bytes/pending level at $n (info)" "${ap_loop[$n]}" "${nio_loop[$n]}" "$(ratio "${ap_loop[$n]}" "${nio_loop[$n]}")" "(info)" ""
done
row "recursion: instr/iteration (info)" "$ap_loop_i" "$nio_loop_i" "$(ratio "$ap_loop_i" "$nio_loop_i")" "(info)" ""
row "recursion: allocations/iteration (info)" "$ap_loop_m" "$nio_loop_m" "$(ratio "$ap_loop_m" "$nio_loop_m")" "(info)" ""
row "NIO 'lots of callbacks' shape, allocs/iter" "$ap_cb_m" "$nio_cb_m" "$(ratio "$ap_cb_m" "$nio_cb_m")" "<=1.0x" "$(verdict "$ap_cb_m/$nio_cb_m" 1.0)"
row "same, instructions/iteration (info)" "$ap_cb_i" "$nio_cb_i" "$(ratio "$ap_cb_i" "$nio_cb_i")" "(info)" ""
row "NIO 'erase result' shape, allocs/iter" "$ap_erase_m" "$nio_erase_m" "$(ratio "$ap_erase_m" "$nio_erase_m")" "<=1.0x" "$(verdict "$ap_erase_m/$nio_erase_m" 1.0)"
row "same, instructions/iteration (info)" "$ap_erase_i" "$nio_erase_i" "$(ratio "$ap_erase_i" "$nio_erase_i")" "(info)" ""

# Allocation thresholds: a change that adds an allocation per link shows up here.
if [ -f "$THRESHOLDS" ]; then
    fail=0
    while read -r name limit; do
        case "$name" in ''|\#*) continue;; esac
        value=$(eval echo "\$$name")
        if python3 -c "import sys; sys.exit(0 if $value <= $limit else 1)"; then :; else
            echo "allocation threshold exceeded: $name = $value > $limit"; fail=1
        fi
    done < "$THRESHOLDS"
    [ "$fail" = 0 ] && echo "allocation thresholds: ok ($THRESHOLDS)"
fi
