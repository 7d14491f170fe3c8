import FoundationEssentials
import Glibc
import Dispatch
import MediaPrep
import UploadPlanner

/// Every subcommand, in `--help` order.
enum Commands {
    static let all: [any Command.Type] = [
        PrepareCommand.self, LinkCommand.self, PlanCommand.self, ProbeCommand.self, ThumbnailCommand.self, CheckCommand.self, BenchCommand.self,
        CompletionsCommand.self,
    ]

    /// The command named `name` parsed and started, through its own type: called on the existential,
    /// `start` ran unspecialised, and its first look at the options made the runtime search every
    /// protocol conformance in the binary (0.35–0.55 million instructions a start, callgrind).
    static func start(_ name: String, _ argv: [String]) -> Start? {
        switch name {
        case PrepareCommand.name: PrepareCommand.start(argv)
        case LinkCommand.name: LinkCommand.start(argv)
        case PlanCommand.name: PlanCommand.start(argv)
        case ProbeCommand.name: ProbeCommand.start(argv)
        case ThumbnailCommand.name: ThumbnailCommand.start(argv)
        case CheckCommand.name: CheckCommand.start(argv)
        case BenchCommand.name: BenchCommand.start(argv)
        case CompletionsCommand.name: CompletionsCommand.start(argv)
        default: nil
        }
    }
}

func topHelp() -> String {
    var s = "mediaprep — prepares chat attachments the way SimpleX Chat sends them\n\nusage: mediaprep COMMAND [options]\n\ncommands:\n"
    for c in Commands.all { s += "  " + c.name.padded(to: 12) + c.summary + "\n" }
    s += "\n'mediaprep COMMAND --help' shows a command's options; 'mediaprep --version' the version.\n"
    return s
}

func runCLI(_ argv: [String]) async -> Int32 {
    switch start(argv) {
    case .done(let code): return code
    case .task(let command): return await command.run()
    }
}

/// The version, the help, a usage error and the commands whose inputs need no task are answered here,
/// on the main thread; the rest are handed back for a task to run.
func start(_ argv: [String]) -> Start {
    Trace.commandStarted()
    guard let first = argv.first else {
        PosixIO.writeStandardError(topHelp())
        return .done(2)
    }
    if first == "--version" || first == "-V" {
        Output.line("mediaprep \(Version.string)")
        return .done(0)
    }
    if first == "--help" || first == "-h" || first == "help" {
        Output.line(topHelp())
        return .done(0)
    }
    guard let started = Commands.start(first, Array(argv.dropFirst())) else {
        Output.error("unknown command '\(first)'" + Suggestion.hint(first, Commands.all.map { $0.name }) + "\n\n" + topHelp())
        return .done(2)
    }
    return started
}

/// The exit status, written once by the task that runs the command.
final class ExitStatus: @unchecked Sendable { var code: Int32 = 0 }

// A plain main thread that waits, rather than async top-level code: the latter hands the main
// thread to dispatch_main, under which valgrind 3.19 (scripts/sanitize.sh) crashes on every run.
Trace.startup()
signal(SIGPIPE, SIG_IGN)  // a closed stdout is EPIPE, then SIGPIPE to the batch's trap (SignalTrap)
MemoryTuning.keepFreedBuffers()
BatchPreparer.setFFmpegLogLevel(.quiet)  // errors come typed, once; libav's own lines would repeat them
let status = ExitStatus()
let finished = DispatchSemaphore(value: 0)
// Arguments as bytes: a file name that is not UTF-8 stays the same file (FileNameBytes).
let arguments = (1..<Int(CommandLine.argc)).map { i in
    CommandLine.unsafeArgv[i].map { FileNameBytes.string(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? ""
}
switch start(arguments) {
case .done(let code):
    status.code = code
case .task(let command):
    Task.detached {
        status.code = await command.run()
        finished.signal()
    }
    finished.wait()
}
// Everything is written and every output renamed into place: skip the atexit teardown of ~60
// libraries (TLS and Kerberos among them, loaded for link previews) and leave at once.
fflush(nil)
OutputWriter.removeTemporaryFiles()  // the private scratch folder (encoder statistics)
_exit(status.code)
