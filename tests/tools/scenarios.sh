# The scenarios of the kernel comparisons (t_vm_scenarios, make kernels), one
# per run: SCEN (a --sweep-env variable) names it; rawl and the file f lie in
# this script's directory. Only shell built-ins: a guest's busybox may have
# no dirname.
d=${0%/*}
case $SCEN in
seq) exec "$d/rawl" seq "$d/f" ;;
random) exec "$d/rawl" random "$d/f" --count 64 --seed 7 ;;
mmap) exec "$d/rawl" mmap "$d/f" ;;
fadvise) exec "$d/rawl" fadvise "$d/f" ;;
interleave) exec "$d/rawl" interleave "$d/f" --fds 2 ;;
esac
echo "scenarios: unknown SCEN '$SCEN'" >&2
exit 9
