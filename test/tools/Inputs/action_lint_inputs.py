#!/usr/bin/env python3
"""action_lint_inputs.py ACTION_YML OUT_DIR [--mutate OLD=NEW]

Writes OUT_DIR/metadata.json (action.yml as JSON, for the schema check) and
OUT_DIR/workflow.yml: a reusable workflow whose inputs are the action's and
whose one job runs the action's steps, so that actionlint (which lints
workflows) checks every step: expressions and the contexts they name
(inputs, github, steps.<id>.outputs), step keys, shells. --mutate first
replaces OLD by NEW (\\n for a newline) in action.yml's text (the test's
check that the lint catches a mistake)."""
import json
import os
import sys

import yaml

src, out = sys.argv[1], sys.argv[2]
text = open(src, encoding="utf-8").read()
if len(sys.argv) > 4 and sys.argv[3] == "--mutate":
    old, new = sys.argv[4].replace("\\n", "\n").split("=", 1)
    if old not in text:
        sys.exit("action_lint_inputs: '%s' is not in %s" % (old, src))
    text = text.replace(old, new)
action = yaml.safe_load(text)
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "metadata.json"), "w") as f:
    json.dump(action, f, indent=1)
workflow = {
    "name": "lint",
    "on": {"workflow_call": {"inputs": {
        name: {"type": "string", "required": bool(spec.get("required", False)),
               "default": str(spec.get("default", ""))}
        for name, spec in action.get("inputs", {}).items()}}},
    "jobs": {"action": {"runs-on": "ubuntu-latest",
                        "steps": action["runs"]["steps"]}},
}
with open(os.path.join(out, "workflow.yml"), "w") as f:
    yaml.safe_dump(workflow, f, sort_keys=False, width=1000)
