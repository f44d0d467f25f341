#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Host side of the PCI guest suite's relay (scripts/pci-vm.sh, docs/pci-testing.md).

The guest writes one request line to its second serial port (/dev/ttyS1);
QEMU carries it to the UNIX socket this relay listens on. The relay answers
with zero or more data lines, then "ok" or "err <reason>", the same framing
as neuron-pciemu's control channel. Requests:

  ping                          ok
  <name> <control command>      forwarded to emulator <name>'s control socket
  <name> grep <ERE> @ <command> idem, only the data lines matching ERE (which
                                may contain spaces; the last " @ " ends it)
  qmp del <id>                  QMP device_del, answered once DEVICE_DELETED
                                for <id> arrived (bounded)
  qmp add <id>                  QMP device_add with the arguments given by
                                --dev <id>=<json> (what the command line had)

Every wait is bounded (--timeout, default 20 s) and fails with a reason.
The transcript goes to --log. The relay exits when the guest side closes
(QEMU exited).
"""
import argparse
import json
import os
import re
import socket
import sys
import time


def log(f, msg):
    if f:
        f.write("%.3f %s\n" % (time.monotonic(), msg))
        f.flush()


class Qmp:
    def __init__(self, path, timeout):
        self.path = path
        self.timeout = timeout
        self.sock = None
        self.buf = b""
        self.events = []

    def _line(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no QMP answer")
            self.sock.settimeout(left)
            d = self.sock.recv(65536)
            if not d:
                raise ConnectionError("QMP closed")
            self.buf += d
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def connect(self):
        if self.sock:
            return
        s = socket.socket(socket.AF_UNIX)
        s.connect(self.path)
        self.sock = s
        deadline = time.monotonic() + self.timeout
        self._line(deadline)  # greeting
        self.cmd("qmp_capabilities", None)

    def cmd(self, name, args):
        msg = {"execute": name}
        if args is not None:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._line(deadline)
            if "event" in m:
                self.events.append(m)
                continue
            if "error" in m:
                raise RuntimeError(m["error"].get("desc", "error"))
            return m.get("return")

    def wait_event(self, name, dev_id):
        deadline = time.monotonic() + self.timeout
        while True:
            for i, e in enumerate(self.events):
                if e["event"] == name and e.get("data", {}).get("device") == dev_id:
                    del self.events[i]
                    return
            self.events.append(self._line(deadline))


def control(path, command, timeout):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(timeout)
    s.connect(path)
    s.sendall(command.encode() + b"\n")
    buf = b""
    deadline = time.monotonic() + timeout
    lines = []
    while True:
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the emulator's control socket")
            s.settimeout(left)
            d = s.recv(1 << 20)
            if not d:
                # "fault vanish" answers ok and exits: the ok may be all we get
                raise ConnectionError("the emulator closed its control socket")
            buf += d
        line, buf = buf.split(b"\n", 1)
        line = line.decode(errors="replace")
        if line == "ok" or line.startswith("err"):
            s.close()
            return lines, line
        lines.append(line)


def handle(req, a, qmp):
    words = req.split()
    if not words:
        return [], "err empty request"
    if words[0] == "ping":
        return [], "ok"
    if words[0] == "qmp":
        if len(words) != 3 or words[1] not in ("del", "add"):
            return [], "err usage: qmp del|add ID"
        dev_id = words[2]
        qmp.connect()
        if words[1] == "del":
            qmp.cmd("device_del", {"id": dev_id})
            qmp.wait_event("DEVICE_DELETED", dev_id)
            return [], "ok"
        if dev_id not in a.devs:
            return [], "err unknown device " + dev_id
        qmp.cmd("device_add", a.devs[dev_id])
        return [], "ok"
    if words[0] in a.ctls:
        path = a.ctls[words[0]]
        rest = req.split(None, 1)[1] if len(words) > 1 else ""
        pattern = None
        if len(words) > 2 and words[1] == "grep":
            body = rest[len("grep "):]
            if " @ " not in body:
                return [], "err usage: NAME grep ERE @ COMMAND"
            ere, rest = body.rsplit(" @ ", 1)
            pattern = re.compile(ere)
        lines, status = control(path, rest, a.timeout)
        if pattern:
            lines = [l for l in lines if pattern.search(l)]
        return lines, status
    return [], "err unknown target " + words[0]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--serial", required=True, help="listen here; QEMU's chardev connects")
    p.add_argument("--qmp", required=True)
    p.add_argument("--ctl", action="append", default=[], help="NAME=PATH")
    p.add_argument("--dev", action="append", default=[], help="ID=JSON for qmp add")
    p.add_argument("--timeout", type=float, default=20.0)
    p.add_argument("--log")
    a = p.parse_args()
    a.ctls = dict(x.split("=", 1) for x in a.ctl)
    a.devs = {k: json.loads(v) for k, v in (x.split("=", 1) for x in a.dev)}
    lf = open(a.log, "a") if a.log else None

    try:
        os.unlink(a.serial)
    except FileNotFoundError:
        pass
    ls = socket.socket(socket.AF_UNIX)
    ls.bind(a.serial)
    ls.listen(1)
    ls.settimeout(120)
    conn, _ = ls.accept()
    conn.settimeout(None)
    log(lf, "guest connected")
    qmp = Qmp(a.qmp, a.timeout)
    buf = b""
    while True:
        d = conn.recv(65536)
        if not d:
            break
        buf += d
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            req = line.decode(errors="replace").strip("\r\0 ")
            if not req:
                continue
            log(lf, "> " + req)
            try:
                lines, status = handle(req, a, qmp)
            except Exception as e:  # every failure is an answer, never a hang
                lines, status = [], "err %s: %s" % (type(e).__name__, e)
            out = "".join(l + "\n" for l in lines) + status + "\n"
            log(lf, "< %d lines, %s" % (len(lines), status))
            conn.sendall(out.encode())
    log(lf, "guest closed")


if __name__ == "__main__":
    sys.exit(main())
