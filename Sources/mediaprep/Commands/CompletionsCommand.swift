/// `mediaprep completions bash|zsh|fish`: shell completion generated from the same command
/// declarations as parsing and help, so a new option or value completes without another edit.
struct CompletionsCommand: Command {
    static let name = "completions"
    static let summary = "print a shell completion script: bash, zsh or fish"
    static let positionals = "bash|zsh|fish"

    enum Option: CommandOption {
        var spec: OptionSpec { switch self {} }
    }

    enum Shell: String { case bash, zsh, fish }
    let shell: Shell

    init(_ a: Arguments<Option>) throws {
        guard a.positionals.count == 1, let s = Shell(rawValue: a.positionals[0]) else {
            throw UsageError(message: "completions takes one shell: bash, zsh or fish")
        }
        shell = s
    }

    func run() async -> Int32 { answer() }

    func runNow() -> Int32? { answer() }

    private func answer() -> Int32 {
        let commands = Commands.all.map { CompletionModel.Command(name: $0.name, summary: $0.summary, takesFiles: $0.positionals.contains("FILE") || $0.positionals.contains("DIR") || $0.positionals.contains("VIDEO"), options: $0.optionSpecs) }
        switch shell {
        case .bash: Output.line(CompletionModel.bash(commands))
        case .zsh: Output.line(CompletionModel.zsh(commands))
        case .fish: Output.line(CompletionModel.fish(commands))
        }
        return 0
    }
}

/// The three shells' scripts from one model of the commands.
enum CompletionModel {
    struct Command {
        let name: String, summary: String, takesFiles: Bool, options: [OptionSpec]
    }

    /// A value spelled `a|b|c` in lower-case words is a choice among them (`--profile simplex|bluesky`).
    static func choices(_ spec: OptionSpec) -> [String]? {
        guard let v = spec.value, v.contains("|") else { return nil }
        let parts = v.split(separator: "|").map(String.init)
        return parts.allSatisfy({ $0.first?.isLowercase == true && $0.allSatisfy { $0.isLetter || $0.isNumber } }) ? parts : nil
    }

    /// A value naming a path completes as files.
    static func isPath(_ spec: OptionSpec) -> Bool { ["FILE", "DIR", "PATH"].contains { spec.value?.contains($0) == true } }

    static func bash(_ commands: [Command]) -> String {
        var s = "# bash completion for mediaprep (mediaprep completions bash)\n_mediaprep() {\n"
        s += "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n    COMPREPLY=()\n"
        s += "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
        s += "        COMPREPLY=($(compgen -W \"\(commands.map(\.name).joined(separator: " ")) --help --version\" -- \"$cur\"))\n        return\n    fi\n"
        s += "    case \"${COMP_WORDS[1]}\" in\n"
        for c in commands {
            s += "    \(c.name))\n        case \"$prev\" in\n"
            for o in c.options where o.value != nil {
                let names = o.names.joined(separator: "|")
                if let values = choices(o) {
                    s += "            \(names)) COMPREPLY=($(compgen -W \"\(values.joined(separator: " "))\" -- \"$cur\")); return ;;\n"
                } else if isPath(o) {
                    s += "            \(names)) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
                } else {
                    s += "            \(names)) return ;;\n"
                }
            }
            s += "        esac\n"
            let words = (c.options.flatMap(\.names) + ["--help"]).joined(separator: " ")
            s += "        if [[ \"$cur\" == -* ]]; then COMPREPLY=($(compgen -W \"\(words)\" -- \"$cur\")); return; fi\n"
            if c.takesFiles { s += "        COMPREPLY=($(compgen -f -- \"$cur\"))\n" }
            s += "        ;;\n"
        }
        s += "    esac\n}\ncomplete -o filenames -o bashdefault -F _mediaprep mediaprep\n"
        return s
    }

    static func zsh(_ commands: [Command]) -> String {
        func esc(_ t: String) -> String {
            t.replacing("\\", with: "\\\\").replacing(":", with: "\\:")
                .replacing("[", with: "\\[").replacing("]", with: "\\]").replacing("'", with: "'\\''")
        }
        var s = "#compdef mediaprep\n# zsh completion for mediaprep (mediaprep completions zsh)\n_mediaprep() {\n    local -a commands\n    commands=(\n"
        for c in commands { s += "        '\(c.name):\(esc(c.summary))'\n" }
        s += "    )\n    if (( CURRENT == 2 )); then\n        _describe 'command' commands\n        _arguments '--version[print the version]' '--help[show help]'\n        return\n    fi\n"
        s += "    words=(${words[2,-1]}); (( CURRENT-- ))\n    case ${words[1]} in\n"
        for c in commands {
            var specs: [String] = []
            for o in c.options {
                let names = o.names.count > 1 ? "{\(o.names.joined(separator: ","))}" : o.names[0]
                let help = "[\(esc(o.help))]"
                var arg = ""
                if let v = o.value {
                    if let values = choices(o) { arg = ":\(esc(v)):(\(values.joined(separator: " ")))" } else if isPath(o) { arg = ":\(esc(v)):_files" } else { arg = ":\(esc(v)): " }
                }
                specs.append((o.repeatable ? "'*'" : "") + (o.names.count > 1 ? names + "'" : "'" + names) + help + arg + "'")
            }
            if c.takesFiles { specs.append("'*:file:_files'") }
            s += "        \(c.name)) _arguments -s \(specs.joined(separator: " ")) ;;\n"
        }
        s += "    esac\n}\n_mediaprep \"$@\"\n"
        return s
    }

    static func fish(_ commands: [Command]) -> String {
        func q(_ t: String) -> String { "'" + t.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'" }
        var s = "# fish completion for mediaprep (mediaprep completions fish)\ncomplete -c mediaprep -f\n"
        let all = commands.map(\.name).joined(separator: " ")
        for c in commands {
            s += "complete -c mediaprep -n \"not __fish_seen_subcommand_from \(all)\" -a \(c.name) -d \(q(c.summary))\n"
        }
        s += "complete -c mediaprep -n \"not __fish_seen_subcommand_from \(all)\" -l version -d 'print the version'\n"
        for c in commands {
            let when = "-n \"__fish_seen_subcommand_from \(c.name)\""
            for o in c.options {
                var line = "complete -c mediaprep \(when)"
                for n in o.names { line += n.hasPrefix("--") ? " -l \(n.dropFirst(2))" : " -s \(n.dropFirst())" }
                if o.value != nil {
                    if let values = choices(o) { line += " -x -a \(q(values.joined(separator: " ")))" } else if isPath(o) { line += " -r -F" } else { line += " -x" }
                }
                s += line + " -d \(q(o.help))\n"
            }
            if c.takesFiles { s += "complete -c mediaprep \(when) -F\n" }
        }
        return s
    }
}
