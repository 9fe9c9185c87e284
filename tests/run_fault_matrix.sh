#!/usr/bin/env bash
# Fault matrix: every transport (and ACCL over the XRT preset's own TCP stack) x every collective x 2 seeds,
# 8 ranks (sendrecv: 2), 1 KiB and 64 KiB
# (eager and rendezvous where the transport has it), under 5 % loss + 2 % duplication + 5 % reordering +
# 1 % corruption on every cable, every output verified. Each run must end
#  - verified (exit 0, "all correct"), or
#  - with a failure the model's rules explain (exit 3): the retry limit of TCP with the losses that caused it,
#    or, for UDP (no recovery at all), a detected deadlock naming the lost packets.
# RoCE and the connectionless transport recover from all of these faults at these rates: they must verify.
# Never an internal error (exit 1), a signal, or a partial output directory.
# Usage: run_fault_matrix.sh NAFSIM [SEEDS...]
set -uo pipefail
nafsim=$(readlink -f "$1")
shift
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2)
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

faults=(--set platform.network.faults.loss_rate=0.05 --set platform.network.faults.duplicate_rate=0.02
        --set platform.network.faults.reorder_rate=0.05 --set platform.network.faults.corruption_rate=0.01)
collectives=(sendrecv nop bcast scatter gather allgather reduce allreduce reduce-scatter alltoall barrier copy combine)
fail=0
runs=0
declare -A tally
# xrt-tcp: ACCL over the XRT platform's hardware TCP stack (accl-xrt-u55c, the DLRM platform): the tcp rows run the
# default stack (go back N) on the Coyote preset; these run the stack the preset builds (the TOE's loss recovery: a
# fast retransmit per hole and bursts of four 4 KiB segments from it, 0.625 s first timeout; one receive FIFO shared
# by the sessions; two sessions per pair; eager only), host data through XRT. Its limit is set by simulated time
# (1,000 s: the stack's timer table reaches 18.75 s); a run takes about 0.1 s of CPU.
for transport in roce tcp udp connectionless xrt-tcp; do
  limit=10s
  case $transport in
    connectionless) scenario=$root/workloads/collective/allreduce-connectionless.json; extra=() ;;
    roce) scenario=$root/workloads/collective/example.json; extra=() ;;
    xrt-tcp) scenario=$root/workloads/collective/gather-xrt-tcp.json; extra=(); limit=1000s ;;
    *) scenario=$root/workloads/collective/example.json; extra=(--set platform.node.fpga.transport=$transport) ;;
  esac
  for c in "${collectives[@]}"; do
    ranks=8
    [ "$c" = sendrecv ] && ranks=2
    for seed in "${seeds[@]}"; do
      out=$work/out-$transport-$c-$seed
      log=$work/log-$transport-$c-$seed
      # The firmware's all-to-all writes through the rendezvous protocol only: over a transport without RDMA WRITE
      # nafsim's flat schedule runs it when forced (CallPlan.cpp).
      forced=()
      [ "$c" = alltoall ] && [ $transport != roce ] && [ $transport != connectionless ] &&
        forced=(--set workload.algorithm=flat)
      "$nafsim" run "$scenario" "${extra[@]}" "${forced[@]}" "${faults[@]}" --seed "$seed" --set workload.collective=$c \
        --set workload.ranks=$ranks --set 'workload.sizes=["1KiB","64KiB"]' --set workload.verify=true \
        --set max_sim_time=$limit --out "$out" > "$log" 2>&1
      rc=$?
      runs=$((runs + 1))
      verdict=""
      if [ $rc -eq 0 ]; then
        if [ "$c" = nop ] || [ "$c" = barrier ] || grep -q "all correct" "$log"; then
          verdict=verified
        else
          verdict="BAD: exit 0 without the verification line"
        fi
      elif [ $rc -eq 3 ]; then
        if [ -e "$out" ]; then
          verdict="BAD: exit 3 left output in $out"
        elif [ "${transport#xrt-}" = tcp ] && grep -q "retry limit is exhausted" "$log" &&
             grep -q "network faults injected" "$log"; then
          verdict="retry limit"
        elif [ $transport = udp ] && grep -q "deadlock" "$log" && grep -q "packet(s) lost" "$log"; then
          verdict="deadlock after loss"
        else
          verdict="BAD: a failure this transport must not have"
        fi
      else
        verdict="BAD: exit $rc"
      fi
      grep -q "internal error" "$log" && verdict="BAD: internal error"
      key="$transport ${verdict%%:*}"
      tally[$key]=$(( ${tally[$key]:-0} + 1 ))
      if [ "${verdict#BAD}" != "$verdict" ]; then
        fail=1
        echo "FAIL $transport $c seed $seed: $verdict"
        sed 's/^/    /' "$log" | tail -n 8
      fi
    done
  done
done
# Software MPI over the hosts' RoCE NICs (issue 28): every collective on 16 ranks, eager (1 KiB) and rendezvous
# (96 KiB: READs), under 1 % and 10 % loss and 1 % and 5 % reordering (each alone). Each run verifies, or fails on
# the retry limit with the losses named (accl-cpu-cx5's adaptive retransmission: a first timeout of 256 us doubling
# up to UCX's 1.07 s, the queue pair failing after 7 x 1.07 s without progress); reordering alone never fails (the NIC
# NAKs a gap once and goes back N; READ responses out of order are placed where they belong, ooo_read_responses).
mpi_faults=("loss_rate=0.01" "loss_rate=0.1" "reorder_rate=0.01" "reorder_rate=0.05")
for c in bcast scatter gather allgather reduce allreduce reduce-scatter alltoall barrier; do
  for f in "${mpi_faults[@]}"; do
    for seed in "${seeds[@]}"; do
      out=$work/out-mpi-$c-$f-$seed
      log=$work/log-mpi-$c-$f-$seed
      "$nafsim" run "$root/workloads/mpi/example.json" --set platform.topology.hosts=16 \
        --set platform.network.switch.flow_control=drop --set platform.network.faults.$f --seed "$seed" \
        --set workload.collective=$c --set workload.ranks=16 --set 'workload.sizes=["1KiB","96KiB"]' \
        --set max_sim_time=1000s --out "$out" > "$log" 2>&1
      rc=$?
      runs=$((runs + 1))
      if [ $rc -eq 0 ] && { [ "$c" = barrier ] || grep -q "all correct" "$log"; }; then
        verdict=verified
      elif [ $rc -eq 3 ] && [ ! -e "$out" ] && [ "${f%%=*}" = loss_rate ] && grep -q "retry limit is exhausted" "$log" \
           && grep -q "network faults injected" "$log" && ! grep -q "faults injected before the failure: 0 packet(s) lost" "$log"; then
        verdict="retry limit"
      else
        verdict="BAD: exit $rc"
      fi
      grep -q "internal error" "$log" && verdict="BAD: internal error"
      key="mpi ${f%%=*} ${verdict%%:*}"
      tally[$key]=$(( ${tally[$key]:-0} + 1 ))
      if [ "${verdict#BAD}" != "$verdict" ]; then
        fail=1
        echo "FAIL mpi $c $f seed $seed: $verdict"
        sed 's/^/    /' "$log" | tail -n 8
      fi
    done
  done
done
# MPI at 1 MiB (issue 55: the rows above stop at 96 KiB, where the hosts' READ storms did not show), under the faults
# that lose nothing: 1 % and 5 % reordering, 2 % duplication, on the preset's lossless switches (PFC, as RoCE runs:
# on drop-tail switches the clean 16-rank allgather itself drops 43,907 packets in the queues and takes 3.2 s, no
# baseline for a fault that loses nothing). Every run must verify (none may fail from reordering or duplication alone);
# each reports its packets and its simulated time against a clean run of the same collective; the packets under 1 %
# reordering must stay within 3x.
packets() { sed -n 's/^simulated [^:]*: \([0-9]*\) packets.*/\1/p' "$1"; }
sim_us() { sed -n 's/^simulated \([0-9.]*\)\(us\|ms\|s\|ns\):.*/\1 \2/p' "$1" | awk '{ m = $2 == "s" ? 1e6 : $2 == "ms" ? 1e3 : $2 == "ns" ? 1e-3 : 1; print $1 * m }'; }
for c in bcast scatter gather allgather reduce allreduce reduce-scatter alltoall barrier; do
  clean=""
  clean_t=""
  for f in "reorder_rate=0" "reorder_rate=0.01" "reorder_rate=0.05" "duplicate_rate=0.02"; do
    out=$work/out-mpi1m-$c-$f
    log=$work/log-mpi1m-$c-$f
    "$nafsim" run "$root/workloads/mpi/example.json" --set platform.topology.hosts=16 \
      --set platform.network.faults.$f --seed "${seeds[0]}" \
      --set workload.collective=$c --set workload.ranks=16 --set 'workload.sizes=["1MiB"]' \
      --set max_sim_time=10s --out "$out" > "$log" 2>&1
    rc=$?
    n=$(packets "$log")
    if [ $rc -ne 0 ] || [ -z "$n" ] || { [ "$c" != barrier ] && ! grep -q "all correct" "$log"; }; then
      fail=1
      echo "FAIL mpi 1MiB $c $f: exit $rc"
      sed 's/^/    /' "$log" | tail -n 8
      continue
    fi
    runs=$((runs + 1))
    t=$(sim_us "$log")
    if [ "$f" = "reorder_rate=0" ]; then
      clean=$n
      clean_t=$t
      continue
    fi
    if [ -z "$clean" ]; then # the clean run failed (reported above): nothing to compare with
      echo "mpi 1MiB $c $f: $n packets (the clean run failed: no ratio)"
      tally["mpi 1MiB ${f%%=*} verified"]=$(( ${tally["mpi 1MiB ${f%%=*} verified"]:-0} + 1 ))
      continue
    fi
    ratio=$(awk -v n="$n" -v c="$clean" 'BEGIN { printf "%.2f", n / c }')
    tratio=$(awk -v n="$t" -v c="$clean_t" 'BEGIN { printf "%.2f", n / c }')
    echo "mpi 1MiB $c $f: $n packets, ${ratio}x a clean run's; ${t} us simulated, ${tratio}x its time"
    key="mpi 1MiB ${f%%=*} verified"
    tally[$key]=$(( ${tally[$key]:-0} + 1 ))
    if [ "$f" = "reorder_rate=0.01" ] && awk -v r="$ratio" 'BEGIN { exit !(r > 3) }'; then
      fail=1
      echo "FAIL mpi 1MiB $c $f: ${ratio}x the packets of a clean run (at most 3x under 1 % reordering)"
    fi
    # No tail may wait for UCX's 1.07 s transport timeout when nothing is lost: adaptive retransmission's first
    # timeout is 256 us (before it, the 5 % allreduce took 3.2 s, 7,213x its clean time; with it 6.9x).
    if [ -z "$t" ] || [ -z "$clean_t" ] || awk -v r="$tratio" 'BEGIN { exit !(r + 0 > 20) }'; then
      fail=1
      echo "FAIL mpi 1MiB $c $f: ${tratio}x the simulated time of a clean run (at most 20x with nothing lost)"
    fi
  done
done
for k in "${!tally[@]}"; do echo "$k: ${tally[$k]}"; done | sort
echo "$runs runs"
exit $fail
