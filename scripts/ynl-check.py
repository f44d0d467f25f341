#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Check the YNL spec of the "neuron" generic netlink family
(docs/netlink/neuron.yaml) against the kernel's genetlink schema, the UAPI
header <neuron/neuron_genl.h> and the module's policy and operations
(kmod/neuron_genl.c). TAP on stdout, one line per check; exit 1 on any
failure.

With YNL_DIR (the kernel's tools/net/ynl), also: the kernel's own YNL
library loads the spec (every name it refers to resolves).

usage: ynl-check.py SCHEMA SPEC HEADER GENL_C [YNL_DIR]
"""
import re
import sys

import jsonschema
import yaml

results = []


def check(name, ok, why=""):
    results.append((name, ok, why))


def c_enum(text, name):
    """The members of C enum NAME, in order, with their values."""
    m = re.search(r"enum\s+" + name + r"\s*\{(.*?)\};", text, re.S)
    if not m:
        return None
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    out, value = [], 0
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" in item:
            ident, expr = (s.strip() for s in item.split("=", 1))
            if re.fullmatch(r"\d+", expr):
                value = int(expr)
            else:
                continue  # FOO_MAX = __FOO_MAX - 1
        else:
            ident = item
        out.append((ident, value))
        value += 1
    return out


def c_define(text, name):
    m = re.search(r"#define\s+" + name + r"\s+(\S+)", text)
    return m.group(1).strip('"') if m else None


def upper(s):
    return s.upper().replace("-", "_")


def main():
    if len(sys.argv) not in (5, 6):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    schema_path, spec_path, header_path, genl_path = sys.argv[1:5]
    schema = yaml.safe_load(open(schema_path))
    spec = yaml.safe_load(open(spec_path))
    header = open(header_path).read()
    genl = open(genl_path).read()

    try:
        jsonschema.validate(spec, schema)
        check("schema", True)
    except jsonschema.ValidationError as e:
        check("schema", False, e.message)

    if len(sys.argv) == 6:
        sys.path.insert(0, sys.argv[5])
        try:
            from lib import SpecFamily
            fam = SpecFamily(spec_path, schema_path)
            check("ynl-loads", sorted(fam.msgs) == sorted(o["name"] for o in spec["operations"]["list"]),
                  "messages %s" % sorted(fam.msgs))
        except Exception as e:  # the library's own errors are plain exceptions
            check("ynl-loads", False, "%s: %s" % (type(e).__name__, e))

    check("family-name", spec["name"] == c_define(header, "NEURON_GENL_FAMILY_NAME"),
          "spec %s, header %s" % (spec["name"], c_define(header, "NEURON_GENL_FAMILY_NAME")))
    check("family-version", str(spec.get("version", 1)) == c_define(header, "NEURON_GENL_VERSION"))
    groups = [g["name"] for g in spec["mcast-groups"]["list"]]
    check("mcast-groups", groups == [c_define(header, "NEURON_GENL_MCGRP_ERRORS")],
          "spec %s" % groups)

    # attributes: the spec's order is the header's numbering (from 1)
    attrs = spec["attribute-sets"][0]["attributes"]
    hdr = {k: v for k, v in c_enum(header, "neuron_genl_attr")}
    for i, a in enumerate(attrs, 1):
        ident = "NEURON_GENL_A_" + upper(a["name"])
        check("attr-" + a["name"], hdr.get(ident) == i,
              "%s is %s in the header, %d in the spec" % (ident, hdr.get(ident), i))
    named = [k for k in hdr if not k.startswith("__") and k not in ("NEURON_GENL_A_UNSPEC",)]
    check("attr-number", len(named) == len(attrs),
          "header %d attributes, spec %d" % (len(named), len(attrs)))

    enums = {}
    for e in re.findall(r"enum\s+(\w+)\s*\{", header):
        enums.update(dict(c_enum(header, e)))

    def resolve(sym):
        if re.fullmatch(r"\d+", sym):
            return int(sym)
        if "__" + sym in enums:
            return enums["__" + sym] - 1
        return enums.get(sym)

    # types and checks against the module's policy
    policy = dict(re.findall(r"\[(NEURON_GENL_A_\w+)\]\s*=\s*([^\n]+?),?\n", genl))
    nla = {"u32": "NLA_U32", "u64": "NLA_U64", "nest": "NLA_NESTED",
           "string": "NLA_NUL_STRING", "flag": "NLA_FLAG", "pad": "NLA_REJECT"}
    for a in attrs:
        ident = "NEURON_GENL_A_" + upper(a["name"])
        p = policy.get(ident, "")
        check("policy-" + a["name"], nla[a["type"]] in p, "policy %r, spec %s" % (p, a["type"]))
        checks = a.get("checks", {})
        # the policy's bounds, numbers or <ENUM>_MAX (the enum's last value)
        m = re.match(r"NLA_POLICY_(RANGE|MAX)\((\w+),\s*(\w+)(?:,\s*(\w+))?\)", p)
        got = {}
        if m:
            args = [x for x in m.group(3, 4) if x]
            vals = [resolve(x) for x in args]
            got = {"min": vals[0], "max": vals[1]} if m.group(1) == "RANGE" else {"max": vals[0]}
        if checks or got:
            want = {k: checks[k] for k in ("min", "max") if k in checks}
            check("policy-checks-" + a["name"], want == got,
                  "policy %r %s, spec checks %s" % (p, got, want))
        if "enum" in a and "max" in checks:
            defn = next(x for x in spec["definitions"] if x["name"] == a["enum"])
            check("checks-max-" + a["name"], checks["max"] == len(defn["entries"]) - 1,
                  "max %s, enum %s has %d entries" % (checks["max"], a["enum"], len(defn["entries"])))

    # enums
    for d, prefix, cenum in (("event-kind", "NEURON_GENL_EVENT_", "neuron_genl_event_kind"),
                             ("health-state", "NEURON_HEALTH_", "neuron_health_state"),
                             ("health-reason", "NEURON_HEALTH_REASON_", "neuron_health_reason")):
        defn = next(x for x in spec["definitions"] if x["name"] == d)
        entries = [e["name"] if isinstance(e, dict) else e for e in defn["entries"]]
        want = [(prefix + upper(e), i) for i, e in enumerate(entries)]
        got = [(k, v) for k, v in c_enum(header, cenum) if not k.startswith("__")
               and not k.endswith("_MAX")]
        check("enum-" + d, want == got, "spec %s, header %s" % (want, got))

    # operations: commands numbered from 1 in the spec's order; do and
    # dump as the module's genl_ops has them; events on a group
    cmds = {k: v for k, v in c_enum(header, "neuron_genl_cmd")}
    for i, op in enumerate(spec["operations"]["list"], 1):
        ident = "NEURON_GENL_CMD_" + upper(op["name"])
        check("op-" + op["name"], cmds.get(ident) == i,
              "%s is %s in the header, %d in the spec" % (ident, cmds.get(ident), i))
        m = re.search(r"\.cmd\s*=\s*" + ident + r"\s*,(.*?)\}", genl, re.S)
        has = {"do": bool(m and ".doit" in m.group(1)), "dump": bool(m and ".dumpit" in m.group(1))}
        for kind in ("do", "dump"):
            check("op-%s-%s" % (op["name"], kind), (kind in op) == has[kind],
                  "spec %s, module %s" % (kind in op, has[kind]))
        if "event" in op:
            check("op-%s-group" % op["name"], op.get("mcgrp") in groups)

    for n, (name, ok, why) in enumerate(results, 1):
        print(("ok %d - %s" % (n, name)) if ok else ("not ok %d - %s: %s" % (n, name, why)))
    print("1..%d" % len(results))
    bad = sum(1 for r in results if not r[1])
    print("# ynl: %d passed, %d failed" % (len(results) - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
