//! Gemini CLI's own check: the folder trusted (it runs no hook at all in an untrusted folder).

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{Check, DoctorOptions, Outcome};
use crate::setup::install::{self, Cli, ConfigDirs};

/// Its agent id in the table.
pub(super) const ID: &str = "gemini";

/// `trustedFolders.json` in Gemini CLI's folder.
pub(super) fn default_trusted_folders(dirs: &ConfigDirs) -> std::path::PathBuf {
    let gemini = Cli::from_agent(ID).map(|cli| dirs.dir(cli).to_owned());
    gemini.unwrap_or_default().join("trustedFolders.json")
}

/// Gemini CLI runs no hook in a folder it does not trust (`checkPathTrust` in Gemini CLI 0.61).
pub(super) fn gemini_folder_check(options: &DoctorOptions, cli: Cli, id: String) -> Check {
    const LABEL: &str = "Folder trusted";
    match options.gemini_trust_workspace.as_deref() {
        Some("true") => {
            return Check::new(id, LABEL, Outcome::Pass, "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder", None)
        }
        Some("false") => {
            return Check::new(
                id,
                LABEL,
                Outcome::Fail,
                "GEMINI_CLI_TRUST_WORKSPACE=false: Gemini CLI runs no hook in any folder",
                Some("unset GEMINI_CLI_TRUST_WORKSPACE".into()),
            )
        }
        _ => {}
    }
    let settings = read_json(&options.dirs.settings_file(cli)).ok().flatten();
    let trust_on = settings
        .as_ref()
        .and_then(|settings| settings.pointer("/security/folderTrust/enabled"))
        .and_then(Value::as_bool)
        .unwrap_or(true);
    if !trust_on {
        return Check::new(
            id,
            LABEL,
            Outcome::Pass,
            "folder trust is off (security.folderTrust.enabled = false)",
            None,
        );
    }
    let file = &options.gemini_trusted_folders;
    let rules = match read_json(file) {
        Ok(Some(Value::Object(rules))) => rules,
        Ok(None) => Default::default(),
        Ok(Some(_)) | Err(_) => {
            return Check::new(
                id,
                LABEL,
                Outcome::Fail,
                format!("{} cannot be read as a JSON object; Gemini CLI refuses to start", file.display()),
                Some(format!("fix or delete {}", file.display())),
            )
        }
    };
    let rules: Vec<(String, String)> =
        rules.into_iter().filter_map(|(path, level)| Some((path, level.as_str()?.to_owned()))).collect();
    let Some(folder) = &options.folder else {
        let trusted = rules.iter().filter(|(_, level)| level != "DO_NOT_TRUST").count();
        let detail =
            format!("Gemini CLI runs hooks only in folders you trust; {trusted} trusted in {}", file.display());
        return Check::new(id, LABEL, Outcome::Skip, detail, None);
    };
    let fix = Some(format!("run gemini in {} and choose \"Trust folder\"", folder.display()));
    match folder_trust(folder, &rules) {
        Some(true) => Check::new(id, LABEL, Outcome::Pass, format!("{} is trusted", folder.display()), None),
        Some(false) => Check::new(
            id,
            LABEL,
            Outcome::Fail,
            format!("{} is marked DO_NOT_TRUST in {}: Gemini CLI runs no hook there", folder.display(), file.display()),
            fix,
        ),
        None => Check::new(
            id,
            LABEL,
            Outcome::Fail,
            format!("{} is not a trusted folder: Gemini CLI runs no hook there", folder.display()),
            fix,
        ),
    }
}

/// Gemini CLI's rule: the longest rule whose folder (a `TRUST_PARENT` rule's parent) holds
/// `folder` decides; `None` when none does.
pub(super) fn folder_trust(folder: &Path, rules: &[(String, String)]) -> Option<bool> {
    let real = |path: &Path| fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    let folder = real(folder);
    let mut best: Option<(usize, &str)> = None;
    for (rule, level) in rules {
        let rule_path = Path::new(rule);
        let effective = match level.as_str() {
            "TRUST_PARENT" => rule_path.parent().unwrap_or(rule_path),
            "TRUST_FOLDER" | "DO_NOT_TRUST" => rule_path,
            _ => continue,
        };
        if folder.starts_with(real(effective)) && best.is_none_or(|(length, _)| rule.len() > length) {
            best = Some((rule.len(), level));
        }
    }
    best.map(|(_, level)| level != "DO_NOT_TRUST")
}

/// The JSON in `path` (comments allowed, as Gemini CLI allows them); `Ok(None)` when there is no file.
fn read_json(path: &Path) -> Result<Option<Value>, ()> {
    match fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&install::without_comments(&bytes)).map(Some).map_err(|_| ()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(_) => Err(()),
    }
}
