//! kubectl's commands and their flags as cobra/pflag parse them: one table per command (the
//! flags real kubectl gives it that this console reads or accepts), parsed by the same pflag
//! parser as etcdctl's, so a flag a command does not have is pflag's error with kubectl's
//! `See 'kubectl get --help' for usage.` (`templates.FlagErrorFunc`).

use super::Ctx;
use crate::console::etcdctl::args::{self, flag, short, Flag, Kind, Parsed, Spec};

const NAMESPACE: Flag = short(
    "namespace",
    'n',
    Kind::Str,
    "",
    "If present, the namespace scope for this CLI request",
);
const OUTPUT: Flag = short("output", 'o', Kind::Str, "", "Output format");
const FILENAME: Flag = short(
    "filename",
    'f',
    Kind::StrArray,
    "[]",
    "The files that contain the configurations",
);
const SELECTOR: Flag = short(
    "selector",
    'l',
    Kind::Str,
    "",
    "Selector (label query) to filter on",
);
const FIELD_SELECTOR: Flag = flag(
    "field-selector",
    Kind::Str,
    "",
    "Selector (field query) to filter on",
);
const ALL_NAMESPACES: Flag = short(
    "all-namespaces",
    'A',
    Kind::Bool,
    "false",
    "If present, list the requested object(s) across all namespaces",
);
const WATCH: Flag = short(
    "watch",
    'w',
    Kind::Bool,
    "false",
    "After listing/getting the requested object, watch for changes",
);
const SHOW_LABELS: Flag = flag(
    "show-labels",
    Kind::Bool,
    "false",
    "When printing, show all labels as the last column",
);
const LABEL_COLUMNS: Flag = short(
    "label-columns",
    'L',
    Kind::StrArray,
    "[]",
    "Accepts a comma separated list of labels that are going to be presented as columns",
);
const NO_HEADERS: Flag = flag(
    "no-headers",
    Kind::Bool,
    "false",
    "When using the default or custom-column output format, don't print headers (default print headers).",
);
const RECORD: Flag = flag(
    "record",
    Kind::Bool,
    "false",
    "Record current kubectl command in the resource annotation",
);
const TIMEOUT: Flag = flag(
    "timeout",
    Kind::Duration,
    "0s",
    "The length of time to wait before giving up",
);
const ALL: Flag = flag(
    "all",
    Kind::Bool,
    "false",
    "Delete all resources, in the namespace of the specified resource types.",
);
const WAIT: Flag = flag(
    "wait",
    Kind::Bool,
    "true",
    "If true, wait for resources to be gone before returning",
);
const FORCE: Flag = flag(
    "force",
    Kind::Bool,
    "false",
    "If true, immediately remove resources from API",
);
const GRACE_PERIOD: Flag = flag(
    "grace-period",
    Kind::Int,
    "-1",
    "Period of time in seconds given to the resource to terminate gracefully",
);
const NOW: Flag = flag(
    "now",
    Kind::Bool,
    "false",
    "If true, resources are signaled for immediate shutdown",
);
const FROM_LITERAL: Flag = flag(
    "from-literal",
    Kind::StrArray,
    "[]",
    "Specify a key and literal value to insert",
);

pub(super) const APPLY: Spec = Spec {
    path: "apply",
    use_line: "apply (-f FILENAME | -k DIRECTORY)",
    short: "Apply a configuration to a resource by file name or stdin.",
    flags: &[
        NAMESPACE,
        FILENAME,
        OUTPUT,
        SELECTOR,
        RECORD,
        WAIT,
        TIMEOUT,
        FORCE,
        GRACE_PERIOD,
    ],
};
pub(super) const CREATE: Spec = Spec {
    path: "create",
    use_line: "create -f FILENAME",
    short: "Create a resource from a file or from stdin.",
    flags: &[NAMESPACE, FILENAME, OUTPUT, SELECTOR, RECORD],
};
pub(super) const CREATE_DEPLOYMENT: Spec = Spec {
    path: "create deployment",
    use_line: "create deployment NAME --image=image -- [COMMAND] [args...]",
    short: "Create a deployment with the specified name.",
    flags: &[
        NAMESPACE,
        OUTPUT,
        flag("image", Kind::Str, "", "Image names to run"),
        short(
            "replicas",
            'r',
            Kind::Int,
            "1",
            "Number of replicas to create",
        ),
    ],
};
pub(super) const CREATE_NAMESPACE: Spec = Spec {
    path: "create namespace",
    use_line: "create namespace NAME [--dry-run=server|client|none]",
    short: "Create a namespace with the specified name.",
    flags: &[NAMESPACE, OUTPUT],
};
pub(super) const CREATE_SECRET: Spec = Spec {
    path: "create secret generic",
    use_line: "create secret generic NAME [--type=string] [--from-file=[key=]source] [--from-literal=key1=value1] [--dry-run=server|client|none]",
    short: "Create a secret from a local file, directory, or literal value.",
    flags: &[
        NAMESPACE,
        OUTPUT,
        FROM_LITERAL,
        flag("type", Kind::Str, "", "The type of secret to create"),
    ],
};
pub(super) const CREATE_CONFIGMAP: Spec = Spec {
    path: "create configmap",
    use_line: "create configmap NAME [--from-file=[key=]source] [--from-literal=key1=value1] [--dry-run=server|client|none]",
    short: "Create a config map based on a file, directory, or specified literal value.",
    flags: &[NAMESPACE, OUTPUT, FROM_LITERAL],
};
pub(super) const GET: Spec = Spec {
    path: "get",
    use_line: "get [(-o|--output=)json|yaml|name|go-template|go-template-file|template|templatefile|jsonpath|jsonpath-as-json|jsonpath-file|custom-columns|custom-columns-file|wide] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...)",
    short: "Display one or many resources.",
    flags: &[
        NAMESPACE,
        OUTPUT,
        SELECTOR,
        FIELD_SELECTOR,
        ALL_NAMESPACES,
        WATCH,
        SHOW_LABELS,
        LABEL_COLUMNS,
        NO_HEADERS,
    ],
};
pub(super) const DELETE: Spec = Spec {
    path: "delete",
    use_line: "delete ([-f FILENAME] | [-k DIRECTORY] | TYPE [(NAME | -l label | --all)])",
    short: "Delete resources by file names, stdin, resources and names, or by resources and label selector.",
    flags: &[
        NAMESPACE,
        FILENAME,
        OUTPUT,
        SELECTOR,
        FIELD_SELECTOR,
        ALL,
        ALL_NAMESPACES,
        WAIT,
        TIMEOUT,
        NOW,
        FORCE,
        GRACE_PERIOD,
    ],
};
pub(super) const DESCRIBE: Spec = Spec {
    path: "describe",
    use_line: "describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME)",
    short: "Show details of a specific resource or group of resources.",
    flags: &[NAMESPACE, SELECTOR, ALL_NAMESPACES],
};
pub(super) const SCALE: Spec = Spec {
    path: "scale",
    use_line: "scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME)",
    short: "Set a new size for a deployment, replica set, replication controller, or stateful set.",
    flags: &[
        NAMESPACE,
        FILENAME,
        OUTPUT,
        SELECTOR,
        RECORD,
        TIMEOUT,
        flag("replicas", Kind::Int, "-1", "The new desired number of replicas"),
    ],
};
pub(super) const SET: Spec = Spec {
    path: "set",
    use_line: "set SUBCOMMAND",
    short: "Configure application resources.",
    flags: &[NAMESPACE],
};
pub(super) const SET_IMAGE: Spec = Spec {
    path: "set image",
    use_line: "set image (-f FILENAME | TYPE NAME) CONTAINER_NAME_1=CONTAINER_IMAGE_1 ... CONTAINER_NAME_N=CONTAINER_IMAGE_N",
    short: "Update existing container image(s) of resources.",
    flags: &[NAMESPACE, FILENAME, OUTPUT, SELECTOR, RECORD],
};
pub(super) const ROLLOUT: Spec = Spec {
    path: "rollout",
    use_line: "rollout SUBCOMMAND",
    short: "Manage the rollout of one or many resources.",
    flags: &[NAMESPACE],
};
pub(super) const ROLLOUT_STATUS: Spec = Spec {
    path: "rollout status",
    use_line: "rollout status (TYPE NAME | TYPE/NAME) [flags]",
    short: "Show the status of the rollout.",
    flags: &[
        NAMESPACE,
        FILENAME,
        SELECTOR,
        TIMEOUT,
        short(
            "watch",
            'w',
            Kind::Bool,
            "true",
            "Watch the status of the rollout until it's done",
        ),
    ],
};
pub(super) const ROLLOUT_HISTORY: Spec = Spec {
    path: "rollout history",
    use_line: "rollout history (TYPE NAME | TYPE/NAME) [flags]",
    short: "View previous rollout revisions and configurations.",
    flags: &[NAMESPACE, FILENAME, OUTPUT, SELECTOR],
};
pub(super) const ROLLOUT_UNDO: Spec = Spec {
    path: "rollout undo",
    use_line: "rollout undo (TYPE NAME | TYPE/NAME) [flags]",
    short: "Roll back to a previous rollout.",
    flags: &[
        NAMESPACE,
        FILENAME,
        OUTPUT,
        SELECTOR,
        flag("to-revision", Kind::Int, "0", "The revision to rollback to"),
    ],
};
pub(super) const VERSION: Spec = Spec {
    path: "version",
    use_line: "version",
    short: "Print the client and server version information for the current context.",
    flags: &[NAMESPACE, OUTPUT],
};

/// One kubectl command: its flags and usage, another name its last word may take
/// (`create deploy`), and what runs it.
pub(super) struct Command {
    spec: Spec,
    alias: &'static str,
    pub run: fn(&mut Ctx, &Args),
}

impl Command {
    /// The command's words (`rollout status`): what completion offers.
    pub fn path(&self) -> &'static str {
        self.spec.path
    }

    pub const fn new(spec: Spec, run: fn(&mut Ctx, &Args)) -> Command {
        Command {
            spec,
            alias: "",
            run,
        }
    }

    pub const fn aliased(spec: Spec, alias: &'static str, run: fn(&mut Ctx, &Args)) -> Command {
        Command { spec, alias, run }
    }

    /// Whether this command's path is `words` (its last word or the alias).
    fn is_named(&self, words: &[&str]) -> bool {
        let path: Vec<&str> = self.spec.path.split(' ').collect();
        path.len() == words.len()
            && path.iter().zip(words).enumerate().all(|(i, (p, w))| {
                p == w || (i + 1 == path.len() && !self.alias.is_empty() && self.alias == *w)
            })
    }

    /// `kubectl CMD --help`: the description and the usage line.
    pub fn help(&self) -> String {
        format!(
            "{}\n\nUsage:\n  kubectl {} [flags] [options]\n\nUse \"kubectl options\" for a list of global command-line options (applies to all commands).\n",
            self.spec.short, self.spec.use_line
        )
    }
}

/// A command's parsed flags and positional arguments.
#[derive(Clone, Debug, Default)]
pub(super) struct Args {
    pub positional: Vec<String>,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub output: Option<String>,
    pub files: Vec<String>,
    pub selector: Option<String>,
    pub field_selector: Option<String>,
    pub replicas: Option<String>,
    pub image: Option<String>,
    pub literals: Vec<String>,
    /// `create secret generic --type`.
    pub secret_type: Option<String>,
    pub to_revision: Option<String>,
    /// `rollout status --timeout` (a Go duration, checked by the parser).
    pub timeout: Option<String>,
    pub show_labels: bool,
    /// `get -L`: each label a column of its own (pflag's string slice: repeated, or commas).
    pub label_columns: Vec<String>,
    pub no_headers: bool,
    /// `get -w`: after the list, print every change that arrives.
    pub watch: bool,
    /// `delete --wait`: wait for the objects to be gone (the default).
    pub wait: bool,
    /// `delete --all`: every object of the types named, in the namespace.
    pub all: bool,
    pub help: bool,
}

impl Args {
    fn from_parsed(p: &Parsed) -> Args {
        let text = |name: &str| p.str(name).map(str::to_string);
        Args {
            positional: p.args.clone(),
            namespace: text("namespace"),
            all_namespaces: p.bool("all-namespaces"),
            output: text("output"),
            files: p.array("filename").to_vec(),
            selector: text("selector"),
            field_selector: text("field-selector"),
            replicas: text("replicas"),
            image: text("image"),
            literals: p.array("from-literal").to_vec(),
            secret_type: text("type"),
            to_revision: text("to-revision"),
            timeout: text("timeout"),
            show_labels: p.bool("show-labels"),
            label_columns: p
                .array("label-columns")
                .iter()
                .flat_map(|v| v.split(','))
                .map(str::to_string)
                .collect(),
            no_headers: p.bool("no-headers"),
            watch: p.bool("watch"),
            // Its default is true: only `--wait=false` turns it off.
            wait: p.str("wait") != Some("false"),
            all: p.bool("all"),
            help: p.bool("help"),
        }
    }

    pub fn namespace(&self) -> String {
        self.namespace.clone().unwrap_or_else(|| "default".into())
    }
}

/// The command `args` (the words after `kubectl`) name, and its flags parsed, or the usage
/// error kubectl prints; `None` for a verb kubectl does not have.
pub(super) fn command_for<'c>(
    commands: &'c [Command],
    args: &[String],
) -> Option<(&'c Command, Result<Args, String>)> {
    let (verb, rest) = args.split_first()?;
    let parent = commands.iter().find(|c| c.is_named(&[verb.as_str()]))?;
    let words = command_words(rest, parent.spec.flags);
    // No command is named by more words than the longest path has: a pasted line of
    // thousands of words is looked up in a few steps, not one per word.
    let deepest = commands
        .iter()
        .map(|c| c.spec.path.split(' ').count())
        .max()
        .unwrap_or(1);
    let (command, depth) = (0..=words.len().min(deepest.saturating_sub(1)))
        .rev()
        .find_map(|depth| {
            let path: Vec<&str> = std::iter::once(verb.as_str())
                .chain(words[..depth].iter().copied())
                .collect();
            commands
                .iter()
                .find(|c| c.is_named(&path))
                .map(|c| (c, depth))
        })
        .unwrap_or((parent, 0));
    let mut own = rest.to_vec();
    for word in &words[..depth] {
        if let Some(i) = own.iter().position(|a| a == word) {
            own.remove(i);
        }
    }
    let parsed = args::parse_local(&command.spec, &own)
        .map(|p| Args::from_parsed(&p))
        .map_err(|e| {
            format!(
                "error: {}\nSee 'kubectl {} --help' for usage.\n",
                e.0, command.spec.path
            )
        });
    Some((command, parsed))
}

/// The words that may name a subcommand (cobra's `stripFlags`): flags are skipped, and so is
/// the word after a flag not known to be boolean, which may be its value.
fn command_words<'a>(args: &'a [String], flags: &[Flag]) -> Vec<&'a str> {
    let is_bool = |f: &&Flag| f.kind == Kind::Bool;
    let mut words = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let word = args[i].as_str();
        i += 1;
        if word == "--" {
            break;
        }
        let takes_next = if let Some(name) = word.strip_prefix("--") {
            !word.contains('=') && !flags.iter().filter(is_bool).any(|f| f.name == name)
        } else if let Some(c) = word.strip_prefix('-') {
            c.chars().count() == 1
                && !flags
                    .iter()
                    .filter(is_bool)
                    .any(|f| f.short.is_some_and(|s| c.starts_with(s)))
        } else {
            if !word.is_empty() {
                words.push(word);
            }
            false
        };
        if takes_next {
            i += 1;
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noop(_: &mut Ctx, _: &Args) {}

    const TABLE: &[Command] = &[
        Command::new(GET, noop),
        Command::new(CREATE, noop),
        Command::aliased(CREATE_DEPLOYMENT, "deploy", noop),
        Command::new(CREATE_SECRET, noop),
        Command::new(ROLLOUT, noop),
        Command::new(ROLLOUT_UNDO, noop),
    ];

    fn parse(line: &str) -> Option<(&'static str, Result<Args, String>)> {
        let words = shlex::split(line).unwrap();
        command_for(TABLE, &words).map(|(c, a)| (c.spec.path, a))
    }

    fn args(line: &str) -> Args {
        parse(line).unwrap().1.unwrap()
    }

    fn error(line: &str) -> String {
        parse(line).unwrap().1.unwrap_err()
    }

    #[test]
    fn flags_parse_as_pflag_does_anywhere_on_the_line() {
        let a = args("get pods -n kube-system -owide --field-selector=spec.nodeName=node-3 -Aw");
        assert_eq!(a.positional, ["pods"]);
        assert_eq!(a.namespace.as_deref(), Some("kube-system"));
        assert_eq!(a.output.as_deref(), Some("wide"));
        assert_eq!(a.field_selector.as_deref(), Some("spec.nodeName=node-3"));
        assert!(a.all_namespaces && a.watch && !a.show_labels);
        let a = args("get nodes -l 'kubernetes.io/hostname in (node-1,node-2)' --show-labels");
        assert_eq!(
            a.selector.as_deref(),
            Some("kubernetes.io/hostname in (node-1,node-2)")
        );
        assert!(a.show_labels);
        let a = args("create -f a.yaml --filename=b,c.yaml -f -");
        assert_eq!(a.files, ["a.yaml", "b,c.yaml", "-"]);
    }

    /// From `raftlab fuzz --target kubectl --seed 1`: a pasted line of 228,000 words ran
    /// past the 60 s hang guard (a lookup per word, each building a path that long). In a
    /// debug build 50,000 words took 12 s before; 200,000 take 0.15 s now.
    #[test]
    fn a_line_of_many_words_is_looked_up_in_a_few_steps() {
        let mut words = vec!["create".to_string(), "deployment".to_string()];
        words.extend((0..200_000).map(|i| format!("w{i}")));
        let (command, parsed) = command_for(TABLE, &words).unwrap();
        assert_eq!(command.spec.path, "create deployment");
        assert_eq!(parsed.unwrap().positional.len(), 200_000);
    }

    #[test]
    fn subcommands_take_their_own_flags() {
        let (path, a) = parse("create deployment web --image=nginx:1.25 --replicas=3").unwrap();
        let a = a.unwrap();
        assert_eq!(path, "create deployment");
        assert_eq!(a.positional, ["web"]);
        assert_eq!(
            (a.image.as_deref(), a.replicas.as_deref()),
            (Some("nginx:1.25"), Some("3"))
        );
        assert_eq!(
            parse("create deploy web -r 2").unwrap().0,
            "create deployment"
        );
        assert_eq!(
            parse("create --image nginx deployment x").unwrap().0,
            "create deployment"
        );
        let a = args("create secret generic db --from-literal=a=1,2 --from-literal b=3");
        assert_eq!(
            (a.positional.as_slice(), a.literals.as_slice()),
            (
                &["db".to_string()][..],
                &["a=1,2".to_string(), "b=3".to_string()][..]
            )
        );
        let (path, a) = parse("rollout undo deployment/web --to-revision=1").unwrap();
        assert_eq!(
            (path, a.unwrap().to_revision.as_deref()),
            ("rollout undo", Some("1"))
        );
        // No such subcommand: the verb itself runs with every word.
        let (path, a) = parse("rollout restart deployment/web").unwrap();
        assert_eq!((path, a.unwrap().positional.len()), ("rollout", 2));
        assert!(parse("frobnicate").is_none());
    }

    #[test]
    fn flags_a_command_lacks_get_kubectls_usage_error() {
        assert_eq!(
            error("get pods --foo"),
            "error: unknown flag: --foo\nSee 'kubectl get --help' for usage.\n"
        );
        assert_eq!(
            error("get pods -x"),
            "error: unknown shorthand flag: 'x' in -x\nSee 'kubectl get --help' for usage.\n"
        );
        assert_eq!(
            error("get pods --replicas=3"),
            "error: unknown flag: --replicas\nSee 'kubectl get --help' for usage.\n"
        );
        assert_eq!(
            error("create deployment web --image=nginx -f x.yaml"),
            "error: unknown shorthand flag: 'f' in -f\nSee 'kubectl create deployment --help' for usage.\n"
        );
        assert_eq!(
            error("get pods -n"),
            "error: flag needs an argument: 'n' in -n\nSee 'kubectl get --help' for usage.\n"
        );
        assert_eq!(
            error("create deployment web --replicas=x"),
            "error: invalid argument \"x\" for \"-r, --replicas\" flag: strconv.ParseInt: parsing \"x\": invalid syntax\nSee 'kubectl create deployment --help' for usage.\n"
        );
        assert!(args("get --help").help);
    }
}
