//! Manifest expressions: `min(kv_cache_tokens / p90_prompt_tokens, max_num_seqs)`, `2 * per_box`.
//! Arithmetic is exact: integers and decimal literals are fractions of 128-bit integers, so
//! `9007199254740993 - 1` is `9007199254740992`, not f64's neighbour; only a quantity that is a
//! non-integral float in the manifest, or an intermediate past 128 bits, falls back to f64. The
//! result is floored to an integer (a capacity of 14.9 holds 14), so write `ceil(..)` to round up
//! on purpose.

use std::cmp::Ordering;
use std::collections::BTreeMap;

/// A parse or evaluation error at a byte offset inside the expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExprError {
    pub(crate) offset: usize,
    pub(crate) message: String,
}

/// A number: an exact fraction (denominator > 0, reduced) or, past what that holds, an f64.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    Exact(i128, i128),
    Float(f64),
}

impl Num {
    pub(crate) fn int(n: i64) -> Num {
        Num::Exact(i128::from(n), 1)
    }

    /// A manifest float: exact when it is a whole number that f64 holds exactly.
    pub(crate) fn float(f: f64) -> Num {
        if f.fract() == 0.0 && f.abs() < 2f64.powi(53) {
            Num::Exact(f as i128, 1)
        } else {
            Num::Float(f)
        }
    }

    fn ratio(n: i128, d: i128) -> Option<Num> {
        if d == 0 {
            return None;
        }
        let g = gcd(n, d);
        let (n, d) = (n / g, d / g);
        Some(if d < 0 {
            Num::Exact(n.checked_neg()?, d.checked_neg()?)
        } else {
            Num::Exact(n, d)
        })
    }

    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Num::Exact(n, d) => n as f64 / d as f64,
            Num::Float(f) => f,
        }
    }

    /// Floored to an integer, when it is a finite number from 0 to `u64::MAX`.
    pub(crate) fn floor_u64(self) -> Option<u64> {
        match self {
            Num::Exact(n, d) => u64::try_from(n.div_euclid(d)).ok(),
            Num::Float(f) if f.is_finite() && f >= 0.0 && f < 2f64.powi(64) => Some(f as u64),
            Num::Float(_) => None,
        }
    }

    fn exact_or_float(
        self,
        other: Num,
        exact: impl Fn(i128, i128, i128, i128) -> Option<Num>,
        float: impl Fn(f64, f64) -> f64,
    ) -> Num {
        if let (Num::Exact(a, b), Num::Exact(c, d)) = (self, other) {
            if let Some(n) = exact(a, b, c, d) {
                return n;
            }
        }
        Num::Float(float(self.as_f64(), other.as_f64()))
    }

    fn add(self, o: Num) -> Num {
        self.exact_or_float(
            o,
            |a, b, c, d| {
                Num::ratio(
                    a.checked_mul(d)?.checked_add(c.checked_mul(b)?)?,
                    b.checked_mul(d)?,
                )
            },
            |x, y| x + y,
        )
    }

    fn sub(self, o: Num) -> Num {
        self.exact_or_float(
            o,
            |a, b, c, d| {
                Num::ratio(
                    a.checked_mul(d)?.checked_sub(c.checked_mul(b)?)?,
                    b.checked_mul(d)?,
                )
            },
            |x, y| x - y,
        )
    }

    fn mul(self, o: Num) -> Num {
        self.exact_or_float(
            o,
            |a, b, c, d| Num::ratio(a.checked_mul(c)?, b.checked_mul(d)?),
            |x, y| x * y,
        )
    }

    /// `None` for a division by zero.
    fn div(self, o: Num) -> Option<Num> {
        if o.as_f64() == 0.0 && matches!(o, Num::Exact(..)) {
            return None;
        }
        Some(self.exact_or_float(
            o,
            |a, b, c, d| Num::ratio(a.checked_mul(d)?, b.checked_mul(c)?),
            |x, y| x / y,
        ))
    }

    fn cmp(self, o: Num) -> Ordering {
        if let (Num::Exact(a, b), Num::Exact(c, d)) = (self, o) {
            if let (Some(l), Some(r)) = (a.checked_mul(d), c.checked_mul(b)) {
                return l.cmp(&r);
            }
        }
        self.as_f64().total_cmp(&o.as_f64())
    }

    fn floor(self) -> Num {
        match self {
            Num::Exact(n, d) => Num::Exact(n.div_euclid(d), 1),
            Num::Float(f) => Num::float(f.floor()),
        }
    }

    fn ceil(self) -> Num {
        match self {
            Num::Exact(n, d) => Num::Exact(n.div_euclid(d) + i128::from(n.rem_euclid(d) != 0), 1),
            Num::Float(f) => Num::float(f.ceil()),
        }
    }

    /// A decimal literal (`1_000`, `0.9`), exactly.
    fn parse(text: &str) -> Option<Num> {
        let (int, frac) = text.split_once('.').unwrap_or((text, ""));
        if int.is_empty() || frac.contains('.') {
            return None;
        }
        let digits = format!("{int}{frac}");
        let n: i128 = digits.parse().ok()?;
        let d = 10i128.checked_pow(u32::try_from(frac.len()).ok()?)?;
        Num::ratio(n, d)
    }
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::Exact(n, 1) => write!(f, "{n}"),
            other => write!(f, "{}", other.as_f64()),
        }
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i128::try_from(a).unwrap_or(1).max(1)
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    Num(Num),
    Var(String, usize),
    Bin(char, Box<Expr>, Box<Expr>, usize),
    Call(String, Vec<Expr>, usize),
}

/// Parse an expression; the error names the offset and what was expected.
pub(crate) fn parse(src: &str) -> Result<Expr, ExprError> {
    let mut p = Parser {
        src,
        pos: 0,
        nodes: 0,
    };
    let e = p.expr()?;
    p.ws();
    if p.pos < src.len() {
        return Err(p.err("expected an operator (+ - * /) or the end of the expression"));
    }
    Ok(e)
}

/// The variables an expression reads.
pub(crate) fn variables(e: &Expr, out: &mut Vec<(String, usize)>) {
    match e {
        Expr::Num(_) => {}
        Expr::Var(v, at) => out.push((v.clone(), *at)),
        Expr::Bin(_, a, b, _) => {
            variables(a, out);
            variables(b, out);
        }
        Expr::Call(_, args, _) => args.iter().for_each(|a| variables(a, out)),
    }
}

/// Evaluate with the given variables; the result is floored.
pub(crate) fn eval(e: &Expr, vars: &BTreeMap<String, Num>) -> Result<u64, ExprError> {
    let v = eval_n(e, vars)?;
    v.floor_u64().ok_or_else(|| ExprError {
        offset: 0,
        message: format!("evaluates to {v}, not a capacity (0 to {})", u64::MAX),
    })
}

fn eval_n(e: &Expr, vars: &BTreeMap<String, Num>) -> Result<Num, ExprError> {
    Ok(match e {
        Expr::Num(n) => *n,
        Expr::Var(v, at) => *vars.get(v).ok_or_else(|| ExprError {
            offset: *at,
            message: format!(
                "unknown quantity `{v}` (known here: {})",
                vars.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        })?,
        Expr::Bin(op, a, b, at) => {
            let (a, b) = (eval_n(a, vars)?, eval_n(b, vars)?);
            match op {
                '+' => a.add(b),
                '-' => a.sub(b),
                '*' => a.mul(b),
                _ => a.div(b).ok_or_else(|| ExprError {
                    offset: *at,
                    message: "divides by zero".into(),
                })?,
            }
        }
        Expr::Call(f, args, at) => {
            let vals: Vec<Num> = args
                .iter()
                .map(|a| eval_n(a, vars))
                .collect::<Result<_, _>>()?;
            match (f.as_str(), vals.as_slice()) {
                ("min", [first, rest @ ..]) => rest
                    .iter()
                    .fold(*first, |m, v| if v.cmp(m).is_lt() { *v } else { m }),
                ("max", [first, rest @ ..]) => rest
                    .iter()
                    .fold(*first, |m, v| if v.cmp(m).is_gt() { *v } else { m }),
                ("floor", [x]) => x.floor(),
                ("ceil", [x]) => x.ceil(),
                _ => {
                    return Err(ExprError {
                        offset: *at,
                        message: format!(
                            "unknown function `{f}` with {} argument(s) (expected min(..), max(..), floor(x) or ceil(x))",
                            vals.len()
                        ),
                    });
                }
            }
        }
    })
}

/// The most operators, calls and parentheses one expression may hold. Parsing, evaluating and
/// dropping a tree recurse as deep as it is, and its depth is at most its node count: the bound
/// keeps a hostile `expr` (10,000 nested parentheses, a 100,000-term sum) a located error rather
/// than a stack overflow. A real formula has a handful.
pub(crate) const MAX_NODES: usize = 200;

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    /// Operators, calls and parentheses read so far.
    nodes: usize,
}

impl Parser<'_> {
    fn err(&self, message: &str) -> ExprError {
        ExprError {
            offset: self.pos,
            message: message.to_string(),
        }
    }

    /// Count one more operator, call or parenthesis, refusing the one past `MAX_NODES`.
    fn node(&mut self) -> Result<(), ExprError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(self.err(&format!(
                "expression too large: more than {MAX_NODES} operators, calls and parentheses"
            )));
        }
        Ok(())
    }

    fn ws(&mut self) {
        while let Some(c) = self.src[self.pos..]
            .chars()
            .next()
            .filter(|c| c.is_whitespace())
        {
            self.pos += c.len_utf8();
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.ws();
        self.src[self.pos..].chars().next()
    }

    fn expr(&mut self) -> Result<Expr, ExprError> {
        let mut e = self.term()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            let at = self.pos;
            self.node()?;
            self.pos += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.term()?), at);
        }
        Ok(e)
    }

    fn term(&mut self) -> Result<Expr, ExprError> {
        let mut e = self.factor()?;
        while let Some(op @ ('*' | '/')) = self.peek() {
            let at = self.pos;
            self.node()?;
            self.pos += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.factor()?), at);
        }
        Ok(e)
    }

    fn factor(&mut self) -> Result<Expr, ExprError> {
        match self.peek() {
            Some('(') => {
                self.node()?;
                self.pos += 1;
                let e = self.expr()?;
                self.expect(')')?;
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.pos;
                while self.src[self.pos..]
                    .starts_with(|c: char| c.is_ascii_digit() || c == '_' || c == '.')
                {
                    self.pos += 1;
                }
                let text = self.src[start..self.pos].replace('_', "");
                Num::parse(&text).map(Expr::Num).ok_or_else(|| ExprError {
                    offset: start,
                    message: format!("`{text}` is not a number (or has more than 38 digits)"),
                })
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.pos;
                while self.src[self.pos..]
                    .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                {
                    self.pos += 1;
                }
                let name = self.src[start..self.pos].to_string();
                if self.peek() == Some('(') {
                    self.node()?;
                    self.pos += 1;
                    let mut args = vec![self.expr()?];
                    while self.peek() == Some(',') {
                        self.pos += 1;
                        args.push(self.expr()?);
                    }
                    self.expect(')')?;
                    Ok(Expr::Call(name, args, start))
                } else {
                    Ok(Expr::Var(name, start))
                }
            }
            _ => Err(self.err("expected a number, a quantity name, a function call or `(`")),
        }
    }

    fn expect(&mut self, c: char) -> Result<(), ExprError> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(&format!("expected `{c}`")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> Result<u64, ExprError> {
        let vars = BTreeMap::from([
            ("kv_cache_tokens".to_string(), Num::int(1_490_818)),
            ("p90_prompt_tokens".to_string(), Num::int(100_000)),
            ("max_num_seqs".to_string(), Num::int(160)),
            ("per_box".to_string(), Num::int(14)),
            ("big".to_string(), Num::int(9_007_199_254_740_993)),
            ("utilization".to_string(), Num::float(0.9)),
        ]);
        eval(&parse(src)?, &vars)
    }

    #[test]
    fn evaluates_the_story_s_formulas() {
        assert_eq!(
            run("min(kv_cache_tokens / p90_prompt_tokens, max_num_seqs)"),
            Ok(14)
        );
        assert_eq!(run("2 * per_box"), Ok(28));
        assert_eq!(run("ceil(29 / 28)"), Ok(2));
        assert_eq!(run("1_000 - 1"), Ok(999));
    }

    #[test]
    fn errors_name_the_offset_and_what_was_expected() {
        assert_eq!(run("2 * per_boxes").unwrap_err().offset, 4);
        assert!(
            run("min(1, 2")
                .unwrap_err()
                .message
                .contains("expected `)`")
        );
        assert!(
            run("avg(1)")
                .unwrap_err()
                .message
                .contains("unknown function")
        );
        assert_eq!(run("2 3").unwrap_err().offset, 2);
    }

    #[test]
    fn hostile_sizes_are_located_errors_not_stack_overflows() {
        let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        let e = run(&deep).unwrap_err();
        assert_eq!(e.offset, MAX_NODES, "{e:?}");
        assert!(e.message.contains("too large"), "{e:?}");
        let sum = format!("1{}", " + 1".repeat(100_000));
        assert!(run(&sum).unwrap_err().message.contains("too large"));
        let within = format!("1{}", " + 1".repeat(MAX_NODES));
        assert_eq!(run(&within), Ok(MAX_NODES as u64 + 1));
    }

    #[test]
    fn integers_stay_exact_and_division_by_zero_is_located() {
        // f64 would say 9007199254740992 for each.
        assert_eq!(run("big"), Ok(9_007_199_254_740_993));
        assert_eq!(run("big * 3 / 3"), Ok(9_007_199_254_740_993));
        assert_eq!(run("(big + 2) - 2"), Ok(9_007_199_254_740_993));
        assert_eq!(run("0.1 * 30"), Ok(3), "decimal literals are exact");
        assert_eq!(run("floor(10 * utilization)"), Ok(9));
        assert_eq!(run("min(big, big + 1)"), Ok(9_007_199_254_740_993));
        let e = run("per_box / (2 - 2)").unwrap_err();
        assert_eq!((e.offset, e.message.as_str()), (8, "divides by zero"));
        assert!(run("0 - 1").unwrap_err().message.contains("not a capacity"));
        assert!(
            run("big * big * big")
                .unwrap_err()
                .message
                .contains("not a capacity")
        );
    }
}
