import MediaPrep

extension String {
    /// printf formatting with `%@` for a string (width and `-` honoured), as Foundation's
    /// `String(format:)`, which would link all of Foundation into every start; the numbers go
    /// through vsnprintf one conversion at a time.
    init(format: String, _ arguments: Any...) {
        self = Self.printf(format, arguments)
    }

    fileprivate static func printf(_ format: String, _ arguments: [Any]) -> String {
        var out = ""
        var next = 0
        var i = format.startIndex
        while i < format.endIndex {
            let c = format[i]
            guard c == "%" else { out.append(c); i = format.index(after: i); continue }
            var j = format.index(after: i)
            guard j < format.endIndex else { out.append(c); break }
            if format[j] == "%" { out.append("%"); i = format.index(after: j); continue }
            // Flags, width, precision and length, up to the conversion letter.
            while j < format.endIndex, "-+ #0123456789.hlqjztL".contains(format[j]) { j = format.index(after: j) }
            guard j < format.endIndex else { out += format[i...]; break }
            let spec = String(format[i...j])
            let argument = next < arguments.count ? arguments[next] : nil
            next += 1
            if format[j] == "@" || format[j] == "s" {
                let text = argument.map { String(describing: $0) } ?? ""
                let flags = spec.dropFirst().dropLast()
                let width = Int(flags.filter(\.isNumber)) ?? 0
                let pad = String(repeating: " ", count: Swift.max(0, width - text.count))
                out += flags.hasPrefix("-") ? text + pad : pad + text
            } else if let number = argument as? CVarArg {
                out += String(printf: spec, number)
            }
            i = format.index(after: j)
        }
        return out
    }
}

/// `String(format:)` by a name the tests can reach past Foundation's.
func formatLine(_ format: String, _ arguments: Any...) -> String { String.printf(format, arguments) }
