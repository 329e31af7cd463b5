//! What an agent's question tool asks (Claude's AskUserQuestion, Codex's `request_user_input`,
//! Gemini's `ask_user`): its questions and their options, bounded. A leaf: the status event and
//! the session both carry it.

use serde::{Deserialize, Serialize};

/// One question of an agent's question tool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// A short label for it (the tab the CLI draws), when given.
    pub header: Option<String>,
    pub question: String,
    /// The choices, numbered from 1 in this order (as the CLI draws them: key `2` picks the second).
    pub options: Vec<QuestionOption>,
    /// More than one option may be chosen.
    #[serde(default)]
    pub multi_select: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct QuestionOption {
    pub label: String,
    pub description: Option<String>,
}

/// Questions kept per session, and options per question, at most; longer texts are clipped.
pub const MAX_QUESTIONS: usize = 8;
pub const MAX_OPTIONS: usize = 16;
const MAX_QUESTION_TEXT: usize = 1_000;

impl Question {
    /// The questions of a question tool's `tool_input` (`{"questions": [{question, header,
    /// options: [{label, description}], multiSelect}]}`, the shape all three CLIs share); what is
    /// not a question is skipped, and the lists and texts are bounded.
    pub fn parse_all(tool_input: Option<&crate::json::Value>) -> Vec<Self> {
        let text = |value: Option<&crate::json::Value>| {
            value
                .and_then(crate::json::Value::as_str)
                .map(|text| text.chars().take(MAX_QUESTION_TEXT).collect::<String>())
        };
        let Some(questions) = tool_input.and_then(|input| input.get("questions")).and_then(|q| q.as_array()) else {
            return Vec::new();
        };
        questions
            .iter()
            .filter_map(|asked| {
                let question = text(asked.get("question")).filter(|q| !q.trim().is_empty())?;
                let options = asked
                    .get("options")
                    .and_then(|o| o.as_array())
                    .map(|options| {
                        options
                            .iter()
                            .filter_map(|option| {
                                let label = text(option.get("label")).filter(|l| !l.trim().is_empty())?;
                                Some(QuestionOption { label, description: text(option.get("description")) })
                            })
                            .take(MAX_OPTIONS)
                            .collect()
                    })
                    .unwrap_or_default();
                Some(Question {
                    header: text(asked.get("header")),
                    question,
                    options,
                    multi_select: asked.get("multiSelect").and_then(crate::json::Value::as_bool).unwrap_or(false),
                })
            })
            .take(MAX_QUESTIONS)
            .collect()
    }
}
