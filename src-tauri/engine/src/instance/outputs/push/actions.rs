//! The buttons a push carries for the phone (issue 49), in ntfy's `Actions` header. What they
//! are for is the phone's business (`instance/act/phone.rs`); push only carries them.

/// One `http` action button.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub label: String,
    pub url: String,
    /// `Bearer <token>`, for a reply topic behind access control.
    pub authorization: Option<String>,
    /// The tap, as JSON.
    pub body: String,
}

/// What a push carries for the phone: its buttons, or a line saying why it has none (or why
/// some options are not buttons).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Buttons {
    pub actions: Vec<Action>,
    pub note: Option<String>,
}

/// The buttons in the `Actions` header's format, as ntfy's publishing docs give it: per button
/// `http, <label>, <url>, method=POST, headers.Authorization=<…>, body=<…>, clear=true`, buttons
/// apart by `;`, a value quoted when it holds a `,`, `;`, `=` or a quote.
pub fn ntfy_actions(actions: &[Action]) -> Option<String> {
    let action = |action: &Action| {
        let mut parts = vec!["http".to_owned(), quoted(&action.label), quoted(&action.url), "method=POST".into()];
        if let Some(authorization) = &action.authorization {
            parts.push(format!("headers.Authorization={}", quoted(authorization)));
        }
        parts.push(format!("body={}", quoted(&action.body)));
        parts.push("clear=true".into());
        parts.join(", ")
    };
    (!actions.is_empty()).then(|| actions.iter().map(action).collect::<Vec<_>>().join("; "))
}

fn quoted(value: &str) -> String {
    if !value.is_empty() && value.trim() == value && !value.contains([',', ';', '=', '"', '\'', '\\']) {
        return value.to_owned();
    }
    if !value.contains('\'') {
        return format!("'{value}'");
    }
    format!("\"{}\"", value.replace('"', "\\\""))
}
