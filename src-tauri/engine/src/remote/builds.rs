//! Which build of Switchboard `remote install` sends (issue 50): the box says what it is
//! (`uname -sm`), and only a program made for that system and processor goes — a static Linux
//! build for Linux x86-64, the macOS build of the box's architecture for a Mac. Anything else is
//! refused with the reason, before a byte is sent.

use std::io::Read;
use std::path::{Path, PathBuf};

/// An operating system and processor, as `uname -sm` names them (`Darwin arm64`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    pub os: String,
    pub arch: String,
}

impl Platform {
    /// The box's answer to `uname -sm`; `None` for anything not two words.
    pub fn parse(uname: &str) -> Option<Self> {
        let mut words = uname.split_whitespace();
        let (os, arch) = (words.next()?, words.next()?);
        words.next().is_none().then(|| Self { os: os.to_owned(), arch: arch.to_owned() })
    }

    /// The build target whose program runs there, if Switchboard is built for it.
    pub fn target(&self) -> Option<Target> {
        match (self.os.as_str(), self.arch.as_str()) {
            ("Linux", "x86_64" | "amd64") => Some(Target::LinuxX86_64),
            ("Darwin", "arm64" | "aarch64") => Some(Target::MacArm64),
            ("Darwin", "x86_64") => Some(Target::MacX86_64),
            _ => None,
        }
    }
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.os, self.arch)
    }
}

/// A system Switchboard builds its CLI for, from Linux (`scripts/cross.sh`, `make static`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Static (musl): runs on any x86-64 Linux, whatever its glibc.
    LinuxX86_64,
    MacArm64,
    MacX86_64,
}

impl Target {
    pub fn triple(self) -> &'static str {
        match self {
            Self::LinuxX86_64 => "x86_64-unknown-linux-musl",
            Self::MacArm64 => "aarch64-apple-darwin",
            Self::MacX86_64 => "x86_64-apple-darwin",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Self::LinuxX86_64 => "a static Linux x86-64 program",
            Self::MacArm64 => "a macOS arm64 program",
            Self::MacX86_64 => "a macOS x86-64 program",
        }
    }
}

/// What a file is, read from its first bytes: the target it runs on, or why it runs nowhere we
/// send to (a dynamically linked Linux build needs the glibc it was built against).
pub fn program_of(head: &[u8]) -> Result<Target, &'static str> {
    const ELF: &[u8] = b"\x7fELF";
    const MACH_O_64: [u8; 4] = [0xcf, 0xfa, 0xed, 0xfe];
    if head.starts_with(ELF) {
        let machine = head.get(18..20).map(|bytes| u16::from_le_bytes([bytes[0], bytes[1]]));
        if machine != Some(0x3e) {
            return Err("a Linux program for another processor than x86-64");
        }
        if head.windows(7).any(|window| window == b"ld-linu") {
            return Err("a dynamically linked Linux program (it needs this machine's glibc; `make static` builds one that runs anywhere)");
        }
        return Ok(Target::LinuxX86_64);
    }
    if head.starts_with(&MACH_O_64) {
        return match head.get(4..8).map(|bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])) {
            Some(0x0100_000c) => Ok(Target::MacArm64),
            Some(0x0100_0007) => Ok(Target::MacX86_64),
            _ => Err("a macOS program for another processor"),
        };
    }
    Err("not a Linux or macOS program")
}

/// The first pages of `path` (enough for its header and, in an ELF file, its loader's name).
pub fn head_of(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)?.take(4096).read_to_end(&mut head)?;
    Ok(head)
}

/// Why no build goes to a box.
#[derive(Debug, thiserror::Error)]
pub enum NoBuild {
    #[error("the box answered `uname -sm` with {0:?}, not a system and a processor")]
    Unknown(String),
    #[error("the box runs {0}, and Switchboard is not built for it (it sends Linux x86-64 and macOS builds)")]
    Unsupported(Platform),
    #[error("the box runs {platform}, and no {triple} build is here: `scripts/cross.sh` builds the macOS ones, `make static` the Linux one")]
    Missing { platform: Platform, triple: &'static str },
    #[error("{} is {is}, and the box runs {platform}: nothing was sent", path.display())]
    Wrong { path: PathBuf, is: String, platform: Platform },
}

/// The program to send to a box that runs `platform`: `SWITCHBOARD_REMOTE_BINARY` when set, else
/// the target's build beside this program or in its build tree — and only if it is made for it.
pub fn choose(platform: &Platform, override_path: Option<PathBuf>, me: &Path) -> Result<PathBuf, NoBuild> {
    let target = platform.target().ok_or_else(|| NoBuild::Unsupported(platform.clone()))?;
    let path = match override_path {
        Some(path) => path,
        None => candidates(target, me)
            .into_iter()
            .find(|path| head_of(path).is_ok_and(|head| program_of(&head) == Ok(target)))
            .ok_or(NoBuild::Missing { platform: platform.clone(), triple: target.triple() })?,
    };
    let is = match head_of(&path) {
        Ok(head) => program_of(&head),
        Err(_) => Err("not a file that can be read"),
    };
    match is {
        Ok(found) if found == target => Ok(path),
        Ok(other) => Err(NoBuild::Wrong { path, is: other.describe().into(), platform: platform.clone() }),
        Err(why) => Err(NoBuild::Wrong { path, is: why.into(), platform: platform.clone() }),
    }
}

/// Where a build for `target` may lie: beside this program (`switchboard-<triple>`, or
/// `switchboard-static` for Linux), in the cargo build tree it came from, or this program.
fn candidates(target: Target, me: &Path) -> Vec<PathBuf> {
    let dir = me.parent().map(Path::to_path_buf).unwrap_or_default();
    let triple = target.triple();
    let mut paths = vec![dir.join(format!("switchboard-{triple}"))];
    if target == Target::LinuxX86_64 {
        paths.push(dir.join("switchboard-static"));
    }
    for up in ["..", "../.."] {
        for profile in ["release", "debug"] {
            paths.push(dir.join(format!("{up}/{triple}/{profile}/switchboard-static")));
        }
    }
    // This program itself, when it is such a build (the static CLI running `remote install`).
    paths.push(me.to_owned());
    paths
}

#[cfg(test)]
mod tests;
