// Rust's regex as a dialect oracle (see ../../README.md), answering "ic \t hex(pattern) \t hex(text),hex(text)..." lines
// with, per text, the leftmost match at or after every code point offset, in code points.
use std::io::{self, BufRead, Write};

fn unhex(s: &str) -> String {
    let bytes: Vec<u8> = (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect();
    String::from_utf8(bytes).unwrap()
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        let parts: Vec<&str> = line.split('\t').collect();
        let mut pattern = unhex(parts[1]);
        if parts[0] == "1" { pattern = format!("(?i){}", pattern); }
        let re = match regex::Regex::new(&pattern) {
            Ok(re) => re,
            Err(e) => { writeln!(out, "ERROR {}", e.to_string().replace('\n', " ")).unwrap(); out.flush().unwrap(); continue; }
        };
        let mut all: Vec<String> = Vec::new();
        for h in parts[2].split(',') {
            let text = if h.is_empty() { String::new() } else { unhex(h) };
            let mut offs: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            offs.push(text.len());
            let spans: Vec<String> = offs.iter().map(|&b| match re.find(&text[b..]) {
                None => "-".to_string(),
                Some(m) => {
                    let s = text[..b + m.start()].chars().count();
                    let e = s + text[b + m.start()..b + m.end()].chars().count();
                    format!("{}:{}", s, e)
                }
            }).collect();
            all.push(spans.join(" "));
        }
        writeln!(out, "{}", all.join("|")).unwrap();
        out.flush().unwrap();
    }
}
