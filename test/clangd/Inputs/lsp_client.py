#!/usr/bin/env python3
"""A small LSP client that drives a language server over stdio, for tests.

Starts SERVER (the rest of the command line), then: initialize, initialized,
textDocument/didOpen of FILE, waits for the publishDiagnostics of FILE that
carries a diagnostic of a check whose name starts with --check-prefix, asks
textDocument/codeAction at that diagnostic's range, and ends with shutdown and
exit. Prints the diagnostics and code actions in a line-oriented form for
FileCheck (lines and columns 1-based, as compilers print them). Every wait has
a deadline, so a server that hangs fails the test instead of blocking it.

Usage: lsp_client.py --file FILE [--check-prefix P] [--timeout S]
                     [--stderr LOG] -- SERVER [ARGS...]
"""

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time
import urllib.request


class LSPError(Exception):
    pass


class Server:
    """One server process: framed JSON-RPC over its stdin and stdout."""

    def __init__(self, command, stderr):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=stderr)
        self.inbox = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        stream = self.proc.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.inbox.put(None)  # the server closed its output
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                raise LSPError("message without Content-Length")
            self.inbox.put(json.loads(stream.read(length)))

    def send(self, message):
        message["jsonrpc"] = "2.0"
        body = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params, deadline):
        request_id = self.next_id
        self.next_id += 1
        self.send({"id": request_id, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == request_id and
                          "method" not in m, deadline, method)
        if "error" in reply:
            raise LSPError("%s failed: %s" % (method, reply["error"]))
        return reply.get("result")

    def wait(self, wanted, deadline, what):
        """Next message that satisfies wanted(); answers server requests."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LSPError("timed out waiting for " + what)
            try:
                message = self.inbox.get(timeout=left)
            except queue.Empty:
                raise LSPError("timed out waiting for " + what)
            if message is None:
                raise LSPError("server exited while waiting for %s (status %s)"
                               % (what, self.proc.poll()))
            if "method" in message and "id" in message:
                # A request from the server (e.g. progress tokens): accept.
                self.send({"id": message["id"], "result": None})
                continue
            if wanted(message):
                return message


def position(pos):
    return "%d:%d" % (pos["line"] + 1, pos["character"] + 1)


def span(rng):
    return "%s-%s" % (position(rng["start"]), position(rng["end"]))


def describe_edits(edit, file_uri):
    """Text edits of a WorkspaceEdit, in file order, one line each."""
    lines = []
    changes = dict(edit.get("changes") or {})
    for doc in edit.get("documentChanges") or []:
        changes.setdefault(doc["textDocument"]["uri"], []).extend(doc["edits"])
    for uri, edits in sorted(changes.items()):
        name = "this file" if uri == file_uri else uri
        for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"],
                                              e["range"]["start"]["character"])):
            lines.append("  edit %s %s: %s" % (name, span(e["range"]),
                                               json.dumps(e["newText"])))
    return lines


def apply_edits(text, edits):
    """text with the edits applied (positions in UTF-16 units: ASCII only)."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def offset(pos):
        return offsets[pos["line"]] + pos["character"]

    for e in sorted(edits, key=lambda e: offset(e["range"]["start"]),
                    reverse=True):
        start, end = offset(e["range"]["start"]), offset(e["range"]["end"])
        text = text[:start] + e["newText"] + text[end:]
    return text


def changed_lines(before, after):
    """Lines of after that differ from before (same line count assumed)."""
    old, new = before.split("\n"), after.split("\n")
    if len(old) != len(new):
        return ["(line count changed from %d to %d)" % (len(old), len(new))]
    return ["  result %d: %s" % (i + 1, b.strip())
            for i, (a, b) in enumerate(zip(old, new)) if a != b]


def run(args):
    path = os.path.abspath(args.file)
    uri = "file://" + urllib.request.pathname2url(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    deadline = time.monotonic() + args.timeout
    stderr = open(args.stderr, "w") if args.stderr else subprocess.DEVNULL
    server = Server(args.server, stderr)
    try:
        server.request("initialize", {
            "processId": os.getpid(),
            "rootUri": "file://" + urllib.request.pathname2url(os.path.dirname(path)),
            "capabilities": {
                "textDocument": {
                    "publishDiagnostics": {"relatedInformation": True},
                    "codeAction": {"codeActionLiteralSupport": {
                        "codeActionKind": {"valueSet": ["quickfix", "refactor"]}}},
                },
            },
        }, deadline)
        server.notify("initialized", {})
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cpp", "version": 1, "text": text}})

        def has_check_diagnostic(message):
            if message.get("method") != "textDocument/publishDiagnostics":
                return False
            params = message["params"]
            return params["uri"] == uri and any(
                str(d.get("code", "")).startswith(args.check_prefix)
                for d in params["diagnostics"])

        published = server.wait(has_check_diagnostic, deadline,
                                 "a %s diagnostic" % args.check_prefix)
        diagnostics = published["params"]["diagnostics"]
        print("diagnostics published: %d" % len(diagnostics))
        for d in diagnostics:
            print("diagnostic %s %s [%s]: %s" % (
                span(d["range"]), d.get("source", "?"), d.get("code", "?"),
                d["message"].splitlines()[0]))
            for related in d.get("relatedInformation") or []:
                print("  related %s: %s" % (span(related["location"]["range"]),
                                            related["message"]))

        ours = [d for d in diagnostics
                if str(d.get("code", "")).startswith(args.check_prefix)]
        for d in ours:
            actions = server.request("textDocument/codeAction", {
                "textDocument": {"uri": uri},
                "range": d["range"],
                "context": {"diagnostics": [d]},
            }, deadline) or []
            print("codeActions at %s [%s]: %d" % (span(d["range"]), d["code"],
                                                  len(actions)))
            for action in actions:
                print("action %s%s: %s" % (
                    action.get("kind", "command"),
                    " preferred" if action.get("isPreferred") else "",
                    action["title"]))
                if "edit" in action:
                    print("\n".join(describe_edits(action["edit"], uri)))
                    edit = action["edit"]
                    mine = list((edit.get("changes") or {}).get(uri, []))
                    for doc in edit.get("documentChanges") or []:
                        if doc["textDocument"]["uri"] == uri:
                            mine.extend(doc["edits"])
                    print("\n".join(changed_lines(text, apply_edits(text, mine))))

        server.request("shutdown", None, deadline)
        server.notify("exit", None)
        status = server.proc.wait(timeout=max(1, deadline - time.monotonic()))
        print("server exited with status %d" % status)
        return 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", required=True)
    parser.add_argument("--check-prefix", default="libtorch-")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--stderr", help="file for the server's log")
    parser.add_argument("server", nargs="+")
    args = parser.parse_args()
    try:
        return run(args)
    except (LSPError, subprocess.TimeoutExpired, OSError) as e:
        print("lsp_client: error: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
