//! A channel between two launches of the app on one machine, named by a path in the state
//! folder: a Unix socket where there are Unix sockets; on Windows a loopback TCP port written to
//! that path (a file only the user can read, like every file of the state folder).

use std::io::{self, Read, Write};
use std::path::Path;
use std::time::Duration;

/// One connection: read and write with a deadline.
pub trait LocalStream: Read + Write + Send {
    fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()>;
}

/// Listens at `path` (replacing whatever was left there by a crash): the caller holds the
/// instance lock, so nothing else listens there.
pub fn listen(path: &Path) -> io::Result<impl Iterator<Item = Box<dyn LocalStream>>> {
    let _ = std::fs::remove_file(path);
    imp::listen(path)
}

/// Connects to what listens at `path`.
pub fn connect(path: &Path) -> io::Result<Box<dyn LocalStream>> {
    imp::connect(path)
}

/// Connects to a Unix socket another program listens on (Codex's daemon, issue 48); where this
/// build has no Unix sockets, an [`io::ErrorKind::Unsupported`] saying so.
pub fn connect_unix(path: &Path) -> io::Result<Box<dyn LocalStream>> {
    imp::connect_unix(path)
}

#[cfg(unix)]
mod imp {
    use std::os::unix::net::{UnixListener, UnixStream};

    use super::*;

    impl LocalStream for UnixStream {
        fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
            UnixStream::set_read_timeout(self, timeout)
        }
    }

    pub fn listen(path: &Path) -> io::Result<impl Iterator<Item = Box<dyn LocalStream>>> {
        let listener = UnixListener::bind(path)?;
        // Bound with the umask's mode (0777 under `umask 000`): the user's alone (issue 45).
        super::super::tighten(path, 0o600)?;
        Ok(std::iter::repeat_with(move || listener.accept())
            .flatten()
            .map(|(stream, _)| Box::new(stream) as Box<dyn LocalStream>))
    }

    pub fn connect(path: &Path) -> io::Result<Box<dyn LocalStream>> {
        Ok(Box::new(UnixStream::connect(path)?))
    }

    pub fn connect_unix(path: &Path) -> io::Result<Box<dyn LocalStream>> {
        connect(path)
    }
}

#[cfg(not(unix))]
mod imp {
    use std::net::{Ipv4Addr, TcpListener, TcpStream};

    use super::*;

    impl LocalStream for TcpStream {
        fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
            TcpStream::set_read_timeout(self, timeout)
        }
    }

    pub fn listen(path: &Path) -> io::Result<impl Iterator<Item = Box<dyn LocalStream>>> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        std::fs::write(path, listener.local_addr()?.port().to_string())?;
        Ok(std::iter::repeat_with(move || listener.accept())
            .flatten()
            .map(|(stream, _)| Box::new(stream) as Box<dyn LocalStream>))
    }

    pub fn connect(path: &Path) -> io::Result<Box<dyn LocalStream>> {
        let port: u16 = std::fs::read_to_string(path)?.trim().parse().map_err(io::Error::other)?;
        Ok(Box::new(TcpStream::connect((Ipv4Addr::LOCALHOST, port))?))
    }

    pub fn connect_unix(_: &Path) -> io::Result<Box<dyn LocalStream>> {
        Err(io::Error::new(io::ErrorKind::Unsupported, "this build does not reach Unix sockets"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_launch_reaches_the_first_through_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app.sock");
        std::fs::write(&path, "left by a crash").unwrap();
        let mut incoming = listen(&path).unwrap();
        let asker = std::thread::spawn({
            let path = path.clone();
            move || {
                let mut stream = connect(&path).unwrap();
                stream.write_all(b"focus").unwrap();
                let mut answer = [0u8; 2];
                stream.read_exact(&mut answer).unwrap();
                answer
            }
        });
        let mut stream = incoming.next().unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut request = [0u8; 5];
        stream.read_exact(&mut request).unwrap();
        assert_eq!(&request, b"focus");
        stream.write_all(b"ok").unwrap();
        assert_eq!(&asker.join().unwrap(), b"ok");
        assert!(connect(&dir.path().join("nothing")).is_err(), "nothing listens there");
    }
}
