//! Tokens of the proof-script language.

use crate::script::Span;

/// A token kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// Identifier, possibly with `_index`, `-` and `'` (`u_i`, `star-ind-l`).
    Ident(String),
    /// A decimal number, possibly with a letter suffix (`16`, `16a`).
    Number(String),
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Plus,
    Star,
    /// `^w`
    Omega,
    /// `<w>`
    OmegaStar,
    /// `<=`
    Le,
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `=>`
    Implies,
    Tilde,
    Comma,
    Semi,
    /// `:=`
    Assign,
    Colon,
    /// `.` or `·`
    Dot,
    Eof,
}

impl Tok {
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Number(s) => format!("`{s}`"),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Plus => "`+`".into(),
            Tok::Star => "`*`".into(),
            Tok::Omega => "`^w`".into(),
            Tok::OmegaStar => "`<w>`".into(),
            Tok::Le => "`<=`".into(),
            Tok::Eq => "`=`".into(),
            Tok::Ne => "`!=`".into(),
            Tok::Implies => "`=>`".into(),
            Tok::Tilde => "`~`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Semi => "`;`".into(),
            Tok::Assign => "`:=`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Dot => "`.`".into(),
            Tok::Eof => "end of file".into(),
        }
    }
}

/// A token with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// A lexical error: an unexpected character.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LexError {
    pub span: Span,
    pub found: char,
}

fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic()
}

fn ident_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '\''
}

/// Splits the source into tokens; the last token is `Eof`.
pub(crate) fn lex(src: &str) -> Result<Vec<Token>, LexError> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = src.char_indices().collect();
    let mut k = 0;
    let end_of = |k: usize| chars.get(k).map(|&(p, _)| p).unwrap_or(src.len());
    while k < chars.len() {
        let (pos, c) = chars[k];
        let next = chars.get(k + 1).map(|&(_, c)| c);
        if c.is_whitespace() {
            k += 1;
            continue;
        }
        if c == '/' && next == Some('/') {
            while k < chars.len() && chars[k].1 != '\n' {
                k += 1;
            }
            continue;
        }
        let single = |tok: Tok, len: usize| (tok, len);
        let (tok, len) = if ident_start(c) {
            let mut j = k;
            while j < chars.len() && ident_continue(chars[j].1) {
                j += 1;
            }
            // A trailing `-` belongs to no identifier (it is never an operator,
            // but `x-` should report the `-`, not swallow it).
            while j > k + 1 && chars[j - 1].1 == '-' {
                j -= 1;
            }
            (Tok::Ident(src[pos..end_of(j)].to_string()), j - k)
        } else if c.is_ascii_digit() {
            let mut j = k;
            while j < chars.len() && chars[j].1.is_ascii_digit() {
                j += 1;
            }
            while j < chars.len() && chars[j].1.is_ascii_alphabetic() {
                j += 1;
            }
            (Tok::Number(src[pos..end_of(j)].to_string()), j - k)
        } else {
            match (c, next) {
                ('(', _) => single(Tok::LParen, 1),
                (')', _) => single(Tok::RParen, 1),
                ('{', _) => single(Tok::LBrace, 1),
                ('}', _) => single(Tok::RBrace, 1),
                ('[', _) => single(Tok::LBracket, 1),
                (']', _) => single(Tok::RBracket, 1),
                ('+', _) => single(Tok::Plus, 1),
                ('*', _) => single(Tok::Star, 1),
                ('^', Some('w')) => single(Tok::Omega, 2),
                ('<', Some('w')) if chars.get(k + 2).map(|p| p.1) == Some('>') => {
                    single(Tok::OmegaStar, 3)
                }
                ('<', Some('=')) => single(Tok::Le, 2),
                ('=', Some('>')) => single(Tok::Implies, 2),
                ('=', _) => single(Tok::Eq, 1),
                ('!', Some('=')) => single(Tok::Ne, 2),
                ('~', _) => single(Tok::Tilde, 1),
                (',', _) => single(Tok::Comma, 1),
                (';', _) => single(Tok::Semi, 1),
                (':', Some('=')) => single(Tok::Assign, 2),
                (':', _) => single(Tok::Colon, 1),
                ('.', _) | ('·', _) => single(Tok::Dot, 1),
                _ => {
                    return Err(LexError {
                        span: Span {
                            start: pos,
                            end: end_of(k + 1),
                        },
                        found: c,
                    });
                }
            }
        };
        out.push(Token {
            tok,
            span: Span {
                start: pos,
                end: end_of(k + len),
            },
        });
        k += len;
    }
    out.push(Token {
        tok: Tok::Eof,
        span: Span {
            start: src.len(),
            end: src.len(),
        },
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn lexes_operators_and_names() {
        assert_eq!(
            toks("u_i <w> x^w <= (+i : M_i) // c\n star-ind-l"),
            vec![
                Tok::Ident("u_i".into()),
                Tok::OmegaStar,
                Tok::Ident("x".into()),
                Tok::Omega,
                Tok::Le,
                Tok::LParen,
                Tok::Plus,
                Tok::Ident("i".into()),
                Tok::Colon,
                Tok::Ident("M_i".into()),
                Tok::RParen,
                Tok::Ident("star-ind-l".into()),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn reports_stray_characters() {
        let e = lex("x $ y").unwrap_err();
        assert_eq!(e.found, '$');
        assert_eq!(e.span, Span { start: 2, end: 3 });
    }
}
