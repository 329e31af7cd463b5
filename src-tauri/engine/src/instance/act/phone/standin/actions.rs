//! ntfy's `Actions` header and RFC 2047 header words, read as ntfy's server reads them.

use serde_json::{json, Value};

/// An RFC 2047 `=?UTF-8?B?…?=` header value decoded; any other value as it is.
pub(super) fn decode_word(value: &str) -> String {
    let Some(encoded) = value.strip_prefix("=?UTF-8?B?").and_then(|v| v.strip_suffix("?=")) else {
        return value.to_owned();
    };
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut count = 0;
    let mut bytes = Vec::new();
    for c in encoded.bytes().filter(|c| *c != b'=') {
        let Some(six) = alphabet.iter().position(|a| *a == c) else { return value.to_owned() };
        bits = bits << 6 | six as u32;
        count += 6;
        if count >= 8 {
            count -= 8;
            bytes.push((bits >> count) as u8);
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| value.to_owned())
}

/// ntfy's simple `Actions` format into its JSON actions (`server/actions.go`: sections apart by
/// `,`, actions by `;`, values quoted with `"` or `'` and `\` before a quote of the same kind;
/// `action`, `label` and, for `view` and `http`, `url` may go without their key; at most three).
pub fn parse_actions(text: &str) -> Result<Value, String> {
    let chars: Vec<char> = text.trim().chars().collect();
    let mut pos = 0;
    let mut actions = Vec::new();
    while pos < chars.len() {
        let mut action = json!({"action": "", "label": "", "clear": false, "headers": {}, "method": "", "body": ""});
        let mut section = 0;
        loop {
            while pos < chars.len() && chars[pos].is_whitespace() {
                pos += 1;
            }
            let rest: String = chars[pos..].iter().collect();
            let mut key = String::new();
            let key_len = rest.chars().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.')).count();
            let after: String = rest.chars().skip(key_len).collect();
            if key_len > 0 && after.trim_start().starts_with('=') {
                key = rest.chars().take(key_len).collect();
                let spaces = after.len() - after.trim_start().len();
                pos += key_len + spaces + 1;
                while pos < chars.len() && chars[pos].is_whitespace() {
                    pos += 1;
                }
            }
            let (value, last) = if pos < chars.len() && (chars[pos] == '"' || chars[pos] == '\'') {
                let quote = chars[pos];
                pos += 1;
                let start = pos;
                while pos < chars.len() && !(chars[pos] == quote && chars[pos - 1] != '\\') {
                    pos += 1;
                }
                if pos >= chars.len() {
                    return Err(format!("unexpected end of input, quote started at position {start}"));
                }
                let value: String =
                    chars[start..pos].iter().collect::<String>().replace(&format!("\\{quote}"), &quote.to_string());
                pos += 1;
                while pos < chars.len() && chars[pos].is_whitespace() {
                    pos += 1;
                }
                if pos < chars.len() && chars[pos] != ',' && chars[pos] != ';' {
                    return Err(format!("unexpected character '{}' at position {pos}", chars[pos]));
                }
                let last = pos >= chars.len() || chars[pos] == ';';
                pos += 1;
                (value, last)
            } else {
                let start = pos;
                while pos < chars.len() && chars[pos] != ',' && chars[pos] != ';' {
                    pos += 1;
                }
                let last = pos >= chars.len() || chars[pos] == ';';
                let value: String = chars[start..pos].iter().collect::<String>().trim().to_owned();
                pos += 1;
                (value, last)
            };
            let kind = action["action"].as_str().unwrap_or_default().to_owned();
            let key = match (key.as_str(), section) {
                ("", 0) => "action".to_owned(),
                ("", 1) => "label".to_owned(),
                ("", 2) if kind == "view" || kind == "http" => "url".to_owned(),
                ("", _) => return Err(format!("term '{value}' unknown")),
                _ => key,
            };
            if let Some(header) = key.strip_prefix("headers.") {
                action["headers"][header] = json!(value);
            } else {
                match key.to_lowercase().as_str() {
                    "clear" => action["clear"] = json!(matches!(value.to_lowercase().as_str(), "true" | "yes" | "1")),
                    field @ ("action" | "label" | "url" | "method" | "body") => action[field] = json!(value),
                    other => return Err(format!("key '{other}' unknown")),
                }
            }
            section += 1;
            if last {
                break;
            }
        }
        let method = action["method"].as_str().unwrap_or_default().to_uppercase();
        action["method"] = json!(if method.is_empty() && action["action"] == "http" { "POST".into() } else { method });
        action["id"] = json!(format!("a{}", actions.len()));
        actions.push(action);
    }
    if actions.len() > 3 {
        return Err("only 3 actions allowed".into());
    }
    Ok(Value::Array(actions))
}
