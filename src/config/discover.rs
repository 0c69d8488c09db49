//! Finding `vgsupp.yaml`: in the working directory or the nearest directory above it.

use std::path::{Path, PathBuf};

/// The config file's name.
pub const FILE_NAME: &str = "vgsupp.yaml";

/// The nearest `vgsupp.yaml` in `start` or a directory above it.
#[must_use]
pub fn discover(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(FILE_NAME))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_upward() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        let deep = root.join("a/b/c");
        std::fs::create_dir_all(&deep).expect("mkdir");
        assert_eq!(
            discover(&deep),
            discover(root),
            "nothing below the temporary directory"
        );
        std::fs::write(root.join(FILE_NAME), "").expect("write");
        assert_eq!(discover(&deep), Some(root.join(FILE_NAME)));
        std::fs::write(root.join("a").join(FILE_NAME), "").expect("write");
        assert_eq!(discover(&deep), Some(root.join("a").join(FILE_NAME)));
        // A directory of that name is not a config.
        std::fs::create_dir_all(deep.join(FILE_NAME)).expect("mkdir");
        assert_eq!(discover(&deep), Some(root.join("a").join(FILE_NAME)));
    }
}
