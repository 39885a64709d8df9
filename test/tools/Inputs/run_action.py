#!/usr/bin/env python3
"""run_action.py ACTION_YML [--input NAME=VALUE]... [--github NAME=VALUE]...

Runs the steps of a composite GitHub Action (action.yml) in the current
directory the way the runner does: each `run:` step with
`bash --noprofile --norc -eo pipefail`, its `env:` evaluated, with
GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP set; `uses:` steps are
printed with their resolved `with:` (they need GitHub). Expressions
`${{ inputs.X }}`, `${{ github.X }}` and `${{ steps.ID.outputs.X }}` are
evaluated; any other expression in a `run:` step's env or script is an error,
so the action cannot grow one that this runner (and the test) ignores.
Inputs take their defaults unless given; an input the action does not
declare is an error. The environment passes through (GITHUB_EVENT_NAME,
GITHUB_BASE_REF, PATH...). Exits with the status of the first failing step.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("action")
    ap.add_argument("--input", action="append", default=[])
    ap.add_argument("--github", action="append", default=[])
    args = ap.parse_args()
    action_path = os.path.dirname(os.path.abspath(args.action))
    with open(args.action, encoding="utf-8") as f:
        action = yaml.safe_load(f)

    inputs = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
    for kv in args.input:
        name, _, value = kv.partition("=")
        if name not in inputs:
            sys.exit("run_action: the action has no input '%s'" % name)
        inputs[name] = value
    github = {"action_path": action_path, "action_repository": "owner/torch-tidy",
              "action_ref": "v0",
              "event_name": os.environ.get("GITHUB_EVENT_NAME", "")}
    for kv in args.github:
        name, _, value = kv.partition("=")
        github[name] = value
    outputs = {}

    def evaluate(text, where):
        def one(m):
            parts = m.group(1).split(".")
            if len(parts) == 2 and parts[0] == "inputs" and parts[1] in inputs:
                return inputs[parts[1]]
            if len(parts) == 2 and parts[0] == "github" and parts[1] in github:
                return github[parts[1]]
            if len(parts) == 4 and parts[0] == "steps" and parts[2] == "outputs":
                return outputs.get(parts[1], {}).get(parts[3], "")
            sys.exit("run_action: unsupported expression '%s' in %s" % (m.group(0), where))
        return EXPR.sub(one, str(text))

    runs = action["runs"]
    if runs.get("using") != "composite":
        sys.exit("run_action: not a composite action")
    temp = tempfile.mkdtemp(prefix="runner-temp-")
    summary = os.environ.get("GITHUB_STEP_SUMMARY") or os.path.join(temp, "summary.md")
    for i, step in enumerate(runs["steps"]):
        name = step.get("name", "step %d" % (i + 1))
        if "uses" in step:
            with_ = " ".join("%s=%s" % (k, evaluate(v, name))
                             for k, v in step.get("with", {}).items())
            print("= %s: uses %s (%s), if: %s; not run here"
                  % (name, step["uses"], with_, step.get("if", "always")), flush=True)
            continue
        if "if" in step:
            sys.exit("run_action: step '%s': `if:` on a run step is not supported here" % name)
        if step.get("shell") != "bash":
            sys.exit("run_action: step '%s' needs shell: bash" % name)
        if EXPR.search(step["run"]):
            sys.exit("run_action: step '%s': an expression in the script itself "
                     "(pass it through env:, which also keeps it from being "
                     "injected into the script)" % name)
        out_file = os.path.join(temp, "output-%d" % i)
        open(out_file, "w").close()
        env = dict(os.environ)
        env.update({"GITHUB_OUTPUT": out_file, "GITHUB_STEP_SUMMARY": summary,
                    "RUNNER_TEMP": temp, "GITHUB_ACTION_PATH": action_path})
        env.setdefault("GITHUB_SERVER_URL", "https://github.com")
        for k, v in step.get("env", {}).items():
            env[k] = evaluate(v, name)
        script = os.path.join(temp, "step-%d.sh" % i)
        with open(script, "w", encoding="utf-8") as f:
            f.write(step["run"])
        print("= %s" % name, flush=True)
        status = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail",
                                 script], env=env).returncode
        if "id" in step:
            with open(out_file, encoding="utf-8") as f:
                outputs[step["id"]] = dict(
                    l.rstrip("\n").split("=", 1) for l in f if "=" in l)
        if status != 0:
            print("= step '%s' failed with exit status %d" % (name, status), flush=True)
            sys.exit(status)
    for k, v in action.get("outputs", {}).items():
        print("= output %s=%s" % (k, evaluate(v["value"], "outputs")))


if __name__ == "__main__":
    main()
