//! One integration-test binary of small modules (saves link time); each runs the real binary.

mod bind;
mod check;
mod ci;
mod cli;
mod config;
mod docs;
mod faults;
mod fixtures;
mod html;
mod layers;
mod manifest;
mod measure;
mod measure_evidence;
mod measure_logs;
mod measure_prometheus;
mod measure_real;
mod mutants;
mod mutants_report;
mod mutants_select;
mod operators;
mod sarif;
mod sparse;
mod support;
