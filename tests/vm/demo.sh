# The demo: what a user of the driver looks at.
echo "== insmod neuron.ko sim_devices=2"
insmod "$NEURON_KO" sim_devices=2 || exit 1
echo
echo "== device nodes"
ls -l /dev/neuron*
echo
echo "== neuron-ls (GET_INFO of each device)"
/tests/neuron-ls
echo
/tests/neuron-ls --json
echo
echo "== sysfs: /sys/class/neuron_device"
ls -l /sys/class/neuron_device/
echo
echo "== sysfs tree of neuron0"
cd /sys/devices/virtual/neuron_device/neuron0 && find . -maxdepth 6 | grep -v -E '/(power|subsystem|uevent)' | sort | head -n 80
for f in core_count; do
	echo "$f = $(cat $f)"
done
cd /
echo
rmmod neuron
echo "== unloaded"
