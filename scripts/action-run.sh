#!/usr/bin/env bash
# Run the GitHub Action's job (action.yml) with the installed cargo-capcheck and record how it
# ended; the action's last step fails with the command's exit code, after the SARIF upload.
#   check    `check --format github` (annotations, step summary), then `check --format sarif`
#            into RUNNER_TEMP/capcheck.sarif for code scanning.
#   mutants  on a pull request: `git diff origin/BASE...HEAD` (it needs `fetch-depth: 0`; a
#            failing `git diff` fails the job with exit 2, never an empty diff that passes), then
#            `mutants --in-diff` of it; elsewhere the whole run. SARIF: OUTPUT/survivors.sarif.
# Environment: CAPCHECK_JOB, CAPCHECK_MANIFEST, CAPCHECK_ARGS (split on whitespace),
# CAPCHECK_OUTPUT, CAPCHECK_BASE, CAPCHECK_SARIF (true|false), GITHUB_EVENT_NAME, RUNNER_TEMP,
# GITHUB_OUTPUT and GITHUB_STEP_SUMMARY (each when set). Writes `exit-code` and `sarif-file` to
# GITHUB_OUTPUT. tests/ci.rs runs it.
set -euo pipefail

job="${CAPCHECK_JOB:-check}"
manifest="${CAPCHECK_MANIFEST:-Cargo.toml}"
read -r -a args <<<"${CAPCHECK_ARGS:-}"
temp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
output="${CAPCHECK_OUTPUT:-$temp/capcheck-mutants}"
event="${GITHUB_EVENT_NAME:-}"
sarif=""
code=0

case "$job" in
  check)
    shown="cargo capcheck check --manifest-path $manifest --format github ${args[*]:-}"
    cargo capcheck check --manifest-path "$manifest" --format github ${args[@]+"${args[@]}"} || code=$?
    if [ "${CAPCHECK_SARIF:-true}" = true ]; then
      # Its exit code is the first run's: that run reported it.
      cargo capcheck check --manifest-path "$manifest" --format sarif ${args[@]+"${args[@]}"} \
        >"$temp/capcheck.sarif" || true
      [ -s "$temp/capcheck.sarif" ] && sarif="$temp/capcheck.sarif"
    fi
    ;;
  mutants)
    if [ "$event" = pull_request ] || [ "$event" = pull_request_target ]; then
      base="${CAPCHECK_BASE:?CAPCHECK_BASE: the base branch of the pull request}"
      diff="$temp/capcheck-pr.diff"
      if ! git diff "origin/$base...HEAD" >"$diff"; then
        echo "::error::cargo-capcheck: \`git diff origin/$base...HEAD\` failed: check out with \`fetch-depth: 0\` so the base branch is there"
        code=2
      else
        shown="cargo capcheck mutants --manifest-path $manifest --in-diff <the pull request's diff> --output $output --format github ${args[*]:-}"
        cargo capcheck mutants --manifest-path "$manifest" --in-diff "$diff" --output "$output" \
          --format github ${args[@]+"${args[@]}"} || code=$?
      fi
    else
      shown="cargo capcheck mutants --manifest-path $manifest --output $output --format github ${args[*]:-}"
      cargo capcheck mutants --manifest-path "$manifest" --output "$output" --format github \
        ${args[@]+"${args[@]}"} || code=$?
    fi
    if [ "${CAPCHECK_SARIF:-true}" = true ] && [ -s "$output/survivors.sarif" ]; then
      sarif="$output/survivors.sarif"
    fi
    ;;
  *)
    echo "::error::cargo-capcheck: unknown job '$job' (check, mutants or install)"
    code=2
    ;;
esac

case "$job/$code" in
  */0) meaning="passed" ;;
  check/1) meaning="error-level findings" ;;
  mutants/1) meaning="survivors, uncovered mutants, a guard not killed or a score under --min-score" ;;
  */2) meaning="usage or input error" ;;
  mutants/3) meaning="the unmutated baseline failed" ;;
  mutants/4) meaning="timeouts but no survivor" ;;
  *) meaning="interrupted or crashed" ;;
esac
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    echo "### cargo-capcheck $job: exit $code ($meaning)"
    echo
    if [ -n "${shown:-}" ]; then echo "\`${shown% }\`"; fi
    echo
  } >>"$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "exit-code=$code"
    echo "sarif-file=$sarif"
  } >>"$GITHUB_OUTPUT"
fi
echo "cargo-capcheck $job: exit $code ($meaning)"
