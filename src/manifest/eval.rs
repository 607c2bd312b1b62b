//! Manifest expressions: `min(kv_cache_tokens / p90_prompt_tokens, max_num_seqs)`, `2 * per_box`.
//! Arithmetic is in f64; the result is floored to an integer (a capacity of 14.9 holds 14), so
//! write `ceil(..)` to round up on purpose.

use std::collections::BTreeMap;

/// A parse or evaluation error at a byte offset inside the expression.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    pub offset: usize,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(f64),
    Var(String, usize),
    Bin(char, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>, usize),
}

/// Parse an expression; the error names the offset and what was expected.
pub fn parse(src: &str) -> Result<Expr, ExprError> {
    let mut p = Parser { src, pos: 0 };
    let e = p.expr()?;
    p.ws();
    if p.pos < src.len() {
        return Err(p.err("expected an operator (+ - * /) or the end of the expression"));
    }
    Ok(e)
}

/// The variables an expression reads.
pub fn variables(e: &Expr, out: &mut Vec<(String, usize)>) {
    match e {
        Expr::Num(_) => {}
        Expr::Var(v, at) => out.push((v.clone(), *at)),
        Expr::Bin(_, a, b) => {
            variables(a, out);
            variables(b, out);
        }
        Expr::Call(_, args, _) => args.iter().for_each(|a| variables(a, out)),
    }
}

/// Evaluate with the given variables; the result is floored.
pub fn eval(e: &Expr, vars: &BTreeMap<String, f64>) -> Result<u64, ExprError> {
    let v = eval_f(e, vars)?;
    if !v.is_finite() || v < 0.0 {
        return Err(ExprError {
            offset: 0,
            message: format!("evaluates to {v}, not a capacity"),
        });
    }
    Ok(v.floor() as u64)
}

fn eval_f(e: &Expr, vars: &BTreeMap<String, f64>) -> Result<f64, ExprError> {
    Ok(match e {
        Expr::Num(n) => *n,
        Expr::Var(v, at) => *vars.get(v).ok_or_else(|| ExprError {
            offset: *at,
            message: format!(
                "unknown quantity `{v}` (known here: {})",
                vars.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        })?,
        Expr::Bin(op, a, b) => {
            let (a, b) = (eval_f(a, vars)?, eval_f(b, vars)?);
            match op {
                '+' => a + b,
                '-' => a - b,
                '*' => a * b,
                _ => a / b,
            }
        }
        Expr::Call(f, args, at) => {
            let vals: Vec<f64> = args
                .iter()
                .map(|a| eval_f(a, vars))
                .collect::<Result<_, _>>()?;
            match (f.as_str(), vals.as_slice()) {
                ("min", [first, rest @ ..]) => rest.iter().fold(*first, |m, v| m.min(*v)),
                ("max", [first, rest @ ..]) => rest.iter().fold(*first, |m, v| m.max(*v)),
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

struct Parser<'a> {
    src: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, message: &str) -> ExprError {
        ExprError {
            offset: self.pos,
            message: message.to_string(),
        }
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
            self.pos += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.term()?));
        }
        Ok(e)
    }

    fn term(&mut self) -> Result<Expr, ExprError> {
        let mut e = self.factor()?;
        while let Some(op @ ('*' | '/')) = self.peek() {
            self.pos += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.factor()?));
        }
        Ok(e)
    }

    fn factor(&mut self) -> Result<Expr, ExprError> {
        match self.peek() {
            Some('(') => {
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
                text.parse().map(Expr::Num).map_err(|_| ExprError {
                    offset: start,
                    message: format!("`{text}` is not a number"),
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
            ("kv_cache_tokens".to_string(), 1_490_818.0),
            ("p90_prompt_tokens".to_string(), 100_000.0),
            ("max_num_seqs".to_string(), 160.0),
            ("per_box".to_string(), 14.0),
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
}
