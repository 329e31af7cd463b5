use super::*;

/// The first bytes of a 64-bit Mach-O program for `cputype`.
fn mach_o(cputype: u32) -> Vec<u8> {
    let mut head = vec![0xcf, 0xfa, 0xed, 0xfe];
    head.extend_from_slice(&cputype.to_le_bytes());
    head.resize(64, 0);
    head
}

/// The first bytes of an x86-64 (0x3e) or arm64 (0xb7) ELF program, naming a loader or not.
fn elf(machine: u16, loader: bool) -> Vec<u8> {
    let mut head = b"\x7fELF\x02\x01\x01".to_vec();
    head.resize(18, 0);
    head.extend_from_slice(&machine.to_le_bytes());
    head.resize(512, 0);
    if loader {
        head.extend_from_slice(b"/lib64/ld-linux-x86-64.so.2\0");
    }
    head
}

fn platform(uname: &str) -> Platform {
    Platform::parse(uname).unwrap()
}

#[test]
fn uname_names_the_target_that_runs_there() {
    assert_eq!(platform("Darwin arm64\n").target(), Some(Target::MacArm64));
    assert_eq!(platform("Darwin x86_64").target(), Some(Target::MacX86_64));
    assert_eq!(platform("Linux x86_64").target(), Some(Target::LinuxX86_64));
    assert_eq!(platform("Linux aarch64").target(), None);
    assert_eq!(platform("FreeBSD amd64").target(), None);
    assert_eq!(Platform::parse(""), None);
    assert_eq!(Platform::parse("sh: uname: not found here"), None);
}

#[test]
fn a_program_is_known_by_its_header() {
    assert_eq!(program_of(&mach_o(0x0100_000c)), Ok(Target::MacArm64));
    assert_eq!(program_of(&mach_o(0x0100_0007)), Ok(Target::MacX86_64));
    assert_eq!(program_of(&elf(0x3e, false)), Ok(Target::LinuxX86_64));
    assert!(program_of(&elf(0x3e, true)).unwrap_err().contains("dynamically linked"));
    assert!(program_of(&elf(0xb7, false)).unwrap_err().contains("another processor"));
    assert!(program_of(b"MZ\x90\0").unwrap_err().contains("not a Linux or macOS program"));
}

#[test]
fn the_build_for_the_box_is_chosen_from_the_build_tree_and_nothing_else() {
    let tree = tempfile::tempdir().unwrap();
    let me = tree.path().join("debug/switchboard");
    let place = |triple: &str, head: Vec<u8>| {
        let path = tree.path().join(triple).join("release/switchboard-static");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, head).unwrap();
        path
    };
    std::fs::create_dir_all(me.parent().unwrap()).unwrap();
    std::fs::write(&me, elf(0x3e, true)).unwrap();
    let arm = place("aarch64-apple-darwin", mach_o(0x0100_000c));
    let linux = place("x86_64-unknown-linux-musl", elf(0x3e, false));

    let chosen = |uname: &str| std::fs::canonicalize(choose(&platform(uname), None, &me).unwrap()).unwrap();
    assert_eq!(chosen("Darwin arm64"), std::fs::canonicalize(arm).unwrap());
    assert_eq!(chosen("Linux x86_64"), std::fs::canonicalize(linux).unwrap());
    // No x86-64 Mac build here: refused, naming what builds it — not this (Linux) program.
    let missing = choose(&platform("Darwin x86_64"), None, &me).unwrap_err();
    assert!(matches!(missing, NoBuild::Missing { triple: "x86_64-apple-darwin", .. }), "{missing}");
    assert!(missing.to_string().contains("scripts/cross.sh"), "{missing}");
    let arm_linux = choose(&platform("Linux aarch64"), None, &me).unwrap_err();
    assert_eq!(
        arm_linux.to_string(),
        "the box runs Linux aarch64, and Switchboard is not built for it (it sends Linux x86-64 and macOS builds)"
    );
}

#[test]
fn a_named_program_goes_only_where_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let linux = dir.path().join("switchboard-static");
    std::fs::write(&linux, elf(0x3e, false)).unwrap();
    let me = dir.path().join("switchboard");

    assert_eq!(choose(&platform("Linux x86_64"), Some(linux.clone()), &me).unwrap(), linux);
    let wrong = choose(&platform("Darwin arm64"), Some(linux.clone()), &me).unwrap_err();
    assert_eq!(
        wrong.to_string(),
        format!(
            "{} is a static Linux x86-64 program, and the box runs Darwin arm64: nothing was sent",
            linux.display()
        )
    );
    let absent = choose(&platform("Linux x86_64"), Some(dir.path().join("nothing")), &me).unwrap_err();
    assert!(absent.to_string().contains("not a file that can be read"), "{absent}");
}
