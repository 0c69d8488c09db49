//! Source paths for reports: a frame's file as a path relative to the source root (the
//! repository), never a temporary or machine path. An XML log gives a directory, so an
//! absolute path under the root is made relative; a text log gives only a file name,
//! which is looked up under the root for first-party frames (taken when exactly one file
//! has that name).

use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use vgsupp::r#gen::detail::DetailFrame;

/// Directories never searched for sources.
const SKIP: &[&str] = &[
    ".git",
    "target",
    "node_modules",
    ".vgsupp",
    "__pycache__",
    ".venv",
];

/// Files looked at when indexing, at most (a huge tree stays cheap).
const MAX_FILES: usize = 200_000;

/// The source root and an index of its files by name, built on first use.
pub struct Sources {
    root: PathBuf,
    index: OnceCell<HashMap<String, Vec<String>>>,
}

/// The git repository's root above `project`, else `project`.
#[must_use]
pub fn default_root(project: &Path) -> PathBuf {
    let start = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    start
        .ancestors()
        .find(|d| d.join(".git").exists())
        .map_or(start.clone(), Path::to_path_buf)
}

impl Sources {
    /// For the source root `root`.
    #[must_use]
    pub fn new(root: &Path) -> Self {
        Self {
            root: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
            index: OnceCell::new(),
        }
    }

    /// The frame's source file relative to the root, with `/` separators, if it is there.
    #[must_use]
    pub fn resolve(&self, f: &DetailFrame) -> Option<String> {
        let path = f.path()?;
        let p = Path::new(&path);
        if p.is_absolute() {
            if let Ok(rel) = p.strip_prefix(&self.root) {
                return Some(slashes(rel));
            }
            // Built elsewhere (a temporary build directory, a container's path): the
            // file of that name in the repository, if there is just one.
            if let Ok(real) = std::fs::canonicalize(p)
                && let Ok(rel) = real.strip_prefix(&self.root)
            {
                return Some(slashes(rel));
            }
        } else if self.root.join(p).is_file() {
            return Some(slashes(p));
        }
        // By its name alone only the user's own code: a library's `main.c` is not the
        // repository's file of that name.
        if !f.first_party {
            return None;
        }
        let name = f.file_name()?;
        match self.index().get(name).map(Vec::as_slice) {
            Some([one]) => Some(one.clone()),
            _ => None,
        }
    }

    fn index(&self) -> &HashMap<String, Vec<String>> {
        self.index.get_or_init(|| {
            let mut map: HashMap<String, Vec<String>> = HashMap::new();
            let walk = walkdir::WalkDir::new(&self.root)
                .follow_links(false)
                .into_iter()
                .filter_entry(|e| {
                    e.depth() == 0
                        || !(e.file_type().is_dir()
                            && e.file_name().to_str().is_some_and(|n| SKIP.contains(&n)))
                });
            for e in walk.filter_map(Result::ok).take(MAX_FILES) {
                if !e.file_type().is_file() {
                    continue;
                }
                let (Some(name), Ok(rel)) =
                    (e.file_name().to_str(), e.path().strip_prefix(&self.root))
                else {
                    continue;
                };
                map.entry(name.to_owned()).or_default().push(slashes(rel));
            }
            map
        })
    }
}

fn slashes(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
