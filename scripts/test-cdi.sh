#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# neuron-ls --cdi against the Container Device Interface's own JSON schema
# (schema/schema.json and defs.json of the CDI project, as Debian packages
# them in golang-github-container-orchestrated-devices-container-device-interface-dev)
# with python3-jsonschema, for fake device trees in a temporary directory:
# the nodes are symlinks to /dev/null and /dev/zero (character devices
# that exist everywhere, so no mknod is needed), and the spec's numbers are
# compared with stat's. Also checked: what the CDI specification requires
# beyond its schema (the kind's and the device names' syntax, unique
# names), and that neuron<N> entries that are not character devices are
# refused with nothing on stdout. TAP output (scripts/tap.sh).
#
#   scripts/test-cdi.sh            BUILD_DIR (default build/) holds neuron-ls
#   CDI_SCHEMA_DIR=DIR             another copy of schema.json + defs.json
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/tap.sh"
build=${BUILD_DIR:-$top/build}
ls_bin=$build/neuron-ls
# Debian's python3 and its python3-jsonschema, not whatever python3 is
# first on PATH (PYTHON=... picks another)
py=${PYTHON:-/usr/bin/python3}
schema_dir=${CDI_SCHEMA_DIR:-/usr/share/gocode/src/github.com/container-orchestrated-devices/container-device-interface/schema}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# validate SPEC_FILE TREE: the schema, then the specification's own rules,
# then the numbers against the tree. Prints one line: "ok" or the reason.
validate() {
	"$py" -W ignore::DeprecationWarning - "$schema_dir" "$1" "$2" <<'EOF'
import json, os, re, sys
import jsonschema

schema_dir, spec_file, tree = sys.argv[1:4]
with open(os.path.join(schema_dir, "schema.json")) as f:
    schema = json.load(f)
with open(os.path.join(schema_dir, "defs.json")) as f:
    defs = json.load(f)
# schema.json names defs.json by a relative reference: both are given
# under one base URI, nothing is fetched.
base = "file://" + os.path.abspath(schema_dir) + "/"
schema.setdefault("$id", base + "schema.json")
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
try:
    import referencing
    registry = referencing.Registry().with_resources([
        (base + "schema.json", referencing.Resource.from_contents(schema, referencing.jsonschema.DRAFT7)),
        (base + "defs.json", referencing.Resource.from_contents(defs, referencing.jsonschema.DRAFT7)),
    ])
    validator = cls(schema, registry=registry)
except ImportError:
    # jsonschema before 4.18 (Debian 12's 4.10)
    resolver = jsonschema.RefResolver(base + "schema.json", schema,
                                      store={base + "defs.json": defs})
    validator = cls(schema, resolver=resolver)
with open(spec_file) as f:
    spec = json.load(f)
errors = sorted(validator.iter_errors(spec), key=str)
if errors:
    print("schema: " + errors[0].message)
    sys.exit(1)

def fail(why):
    print(why)
    sys.exit(1)

# The CDI specification's rules that its JSON schema does not carry.
if spec["cdiVersion"] != "0.5.0":
    fail("cdiVersion %r" % spec["cdiVersion"])
# kind: vendor/class; vendor a domain-like name, class alphanumerics, - _ .
m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9])/([A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9])",
                 spec["kind"])
if not m or spec["kind"] != "aws.amazon.com/neuron":
    fail("kind %r" % spec["kind"])
names = [d["name"] for d in spec["devices"]]
if len(set(names)) != len(names):
    fail("device names repeat: %r" % names)
for n in names:
    if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?", n):
        fail("device name %r" % n)

# Ours: one device per node of the tree, named by its index, and "all".
want = sorted(int(e[6:]) for e in os.listdir(tree) if re.fullmatch(r"neuron[0-9]+", e))
if names != [str(i) for i in want] + ["all"]:
    fail("devices %r, tree has %r" % (names, want))
everything = []
for d in spec["devices"]:
    nodes = d["containerEdits"]["deviceNodes"]
    if d["name"] != "all":
        if len(nodes) != 1:
            fail("device %s has %d nodes" % (d["name"], len(nodes)))
        everything += nodes
    for nd in nodes:
        host = nd.get("hostPath", nd["path"])
        st = os.stat(host)
        if nd["type"] != "c":
            fail("%s: type %r" % (host, nd["type"]))
        if (nd["major"], nd["minor"]) != (os.major(st.st_rdev), os.minor(st.st_rdev)):
            fail("%s: %d:%d, stat says %d:%d" % (host, nd["major"], nd["minor"],
                 os.major(st.st_rdev), os.minor(st.st_rdev)))
        idx = re.fullmatch(r"/dev/neuron([0-9]+)", nd["path"])
        if not idx or host != os.path.join(tree, "neuron" + idx.group(1)):
            fail("path %r, hostPath %r" % (nd["path"], host))
all_nodes = [d for d in spec["devices"] if d["name"] == "all"][0]["containerEdits"]["deviceNodes"]
if all_nodes != everything:
    fail("\"all\" is not every node")
print("ok")
EOF
}

# check NAME COMMAND...: one TAP result from a command that prints "ok".
check() {
	local name=$1 out
	shift
	out=$("$@" 2>&1)
	if [ "$out" = ok ]; then tap_pass "$name"; else tap_fail "$name" "$out"; fi
}

have_prereqs=1
if [ -x "$ls_bin" ]; then tap_pass "neuron-ls is built"; else
	tap_fail "neuron-ls is built" "$ls_bin missing (make lib)"; have_prereqs=0; fi
if [ -r "$schema_dir/schema.json" ] && [ -r "$schema_dir/defs.json" ]; then
	tap_pass "CDI schema present"
else
	tap_fail "CDI schema present" "no schema.json/defs.json in $schema_dir (scripts/deps.sh)"
	have_prereqs=0
fi
if "$py" -c 'import jsonschema' 2>/dev/null; then tap_pass "python3-jsonschema present"; else
	tap_fail "python3-jsonschema present" "$py cannot import jsonschema (scripts/deps.sh)"
	have_prereqs=0
fi
if [ "$have_prereqs" = 0 ]; then
	tap_done cdi
	exit 1
fi

# refused NAME PATTERN SPEC: the validator refuses SPEC, saying PATTERN.
refused() {
	local out
	echo "$3" > "$tmp/bad.json"
	if out=$(validate "$tmp/bad.json" "$tmp" 2>&1); then
		tap_fail "$1" "validated: $out"
	else
		case "$out" in
		schema:*"$2"*) tap_pass "$1" ;;
		*) tap_fail "$1" "$out" ;;
		esac
	fi
}
# The validator itself: a spec with a device that lacks containerEdits is
# refused, and it follows schema.json's reference into defs.json: a device
# node without its required path is refused too.
refused "schema refuses a device without containerEdits" containerEdits \
	'{"cdiVersion":"0.5.0","kind":"aws.amazon.com/neuron","devices":[{"name":"0"}]}'
refused "schema (defs.json) refuses a device node without path" path \
	'{"cdiVersion":"0.5.0","kind":"aws.amazon.com/neuron","devices":[{"name":"0","containerEdits":{"deviceNodes":[{"type":"c"}]}}]}'

# tree NAME: a fresh directory.
tree() { rm -rf "${tmp:?}/$1"; mkdir -p "$tmp/$1"; echo "$tmp/$1"; }

# generate TREE OUT: neuron-ls --cdi for TREE; status in $rc, stderr in OUT.err.
generate() {
	"$ls_bin" --cdi --dev-dir "$1" > "$2" 2> "$2.err"
	rc=$?
}

# Two devices, and entries that are not Neuron nodes (ignored).
t=$(tree two)
ln -s /dev/null "$t/neuron0"
ln -s /dev/zero "$t/neuron1"
: > "$t/neuron_other"
: > "$t/neuronX"
generate "$t" "$tmp/two.json"
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/two.json.err" ]; then tap_pass "two nodes: exit 0"; else
	tap_fail "two nodes: exit 0" "exit $rc: $(head -c 200 "$tmp/two.json.err")"; fi
check "two nodes: valid spec, numbers from stat" validate "$tmp/two.json" "$t"
if jq -e '[.devices[].name] == ["0", "1", "all"]' "$tmp/two.json" > /dev/null; then
	tap_pass "two nodes: devices 0, 1, all"
else
	tap_fail "two nodes: devices 0, 1, all" "$(jq -c '[.devices[].name]' "$tmp/two.json")"
fi

# Gaps keep their indexes; a trailing slash on the directory changes nothing.
t=$(tree gaps)
ln -s /dev/null "$t/neuron0"
ln -s /dev/zero "$t/neuron5"
ln -s /dev/full "$t/neuron63"
"$ls_bin" --cdi --dev-dir "$t/" > "$tmp/gaps.json" 2>/dev/null
check "gaps: 0, 5, 63 and all, valid" validate "$tmp/gaps.json" "$t"

# The real /dev's paths need no hostPath: one without --dev-dir on a host
# that has Neuron devices (there is none here: then exit 1, empty stdout).
out=$("$ls_bin" --cdi 2>/dev/null)
rc=$?
if ls /dev/neuron[0-9]* > /dev/null 2>&1; then
	printf '%s\n' "$out" > "$tmp/dev.json"
	check "/dev: valid spec" validate "$tmp/dev.json" /dev
else
	if [ "$rc" -eq 1 ] && [ -z "$out" ]; then tap_pass "/dev without Neuron nodes: exit 1, empty stdout"
	else tap_fail "/dev without Neuron nodes: exit 1, empty stdout" "exit $rc, stdout '${out:0:80}'"; fi
fi

# refused TREE-NAME WHAT: a neuron<N> that is not a character device.
refused() {
	local name=$1 what=$2 t=$tmp/$1
	generate "$t" "$tmp/$name.json"
	if [ "$rc" -eq 1 ] && [ ! -s "$tmp/$name.json" ] && [ "$(wc -l < "$tmp/$name.json.err")" -eq 1 ] &&
	   grep -q "$what" "$tmp/$name.json.err"; then
		tap_pass "$name: refused"
	else
		tap_fail "$name: refused" "exit $rc, stdout $(wc -c < "$tmp/$name.json") bytes, stderr '$(head -c 200 "$tmp/$name.json.err")'"
	fi
}
t=$(tree regular-file)
ln -s /dev/null "$t/neuron0"
: > "$t/neuron1"
refused regular-file "$t/neuron1: not a character device"
t=$(tree directory)
mkdir "$t/neuron0"
refused directory "$t/neuron0: not a character device"
t=$(tree dir-link)
ln -s /dev/null "$t/neuron0"
ln -s "$tmp" "$t/neuron2"
refused dir-link "$t/neuron2: not a character device"
t=$(tree dangling)
ln -s "$tmp/nothing-here" "$t/neuron0"
ln -s /dev/null "$t/neuron1"
# a dangling link is a node that is not there (stat: ENOENT), like udev's
# half-removed device: left out, the rest still listed
generate "$t" "$tmp/dangling.json"
if [ "$rc" -eq 0 ] && jq -e '[.devices[].name] == ["1", "all"]' "$tmp/dangling.json" > /dev/null; then
	tap_pass "dangling link: left out"
else
	tap_fail "dangling link: left out" "exit $rc: $(head -c 200 "$tmp/dangling.json.err")"
fi

t=$(tree empty)
generate "$t" "$tmp/empty.json"
if [ "$rc" -eq 1 ] && [ ! -s "$tmp/empty.json" ] && grep -q "no Neuron device nodes in $t" "$tmp/empty.json.err"; then
	tap_pass "no nodes: exit 1, empty stdout"
else
	tap_fail "no nodes: exit 1, empty stdout" "exit $rc"
fi

"$ls_bin" --dev-dir "$t" > /dev/null 2>&1
rc=$?
if [ "$rc" -eq 2 ]; then tap_pass "--dev-dir without --cdi: exit 2"; else
	tap_fail "--dev-dir without --cdi: exit 2" "exit $rc"; fi

tap_done cdi
