#!/usr/bin/env node
// Validates SARIF files against the SARIF 2.1.0 schema kept beside this
// script. Exit 0 when every file is valid, 1 with the errors otherwise.
"use strict";
const fs = require("fs");
const path = require("path");
const Ajv = require("ajv-draft-04");
const addFormats = require("ajv-formats");

const schema = JSON.parse(
  fs.readFileSync(path.join(__dirname, "sarif-schema-2.1.0.json"), "utf8"));
// unicodeRegExp: false: the official schema's pattern for "language" has a stray
// "]" that only non-unicode regular expressions accept.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

let failed = false;
for (const file of process.argv.slice(2)) {
  const log = JSON.parse(fs.readFileSync(file, "utf8"));
  if (validate(log)) {
    console.log(`${file}: valid SARIF 2.1.0`);
  } else {
    failed = true;
    for (const e of validate.errors)
      console.log(`${file}: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  }
}
process.exit(failed ? 1 : 0);
