import Glibc

extension String {
    /// printf's formatting of numbers (vsnprintf): `String(format:)` is in Foundation proper, which
    /// costs every start its relocations. Strings go in by interpolation: `%@` is not supported.
    package init(printf format: String, _ arguments: CVarArg...) {
        let format = Self.widenedIntegers(format)
        // Narrower integers as words, since every integer conversion now reads a long (Swift passes
        // an Int32 zero-extended: -1 would print 4294967295).
        let arguments: [CVarArg] = arguments.map { a in
            switch a {
            case let v as Int32: Int(v)
            case let v as Int16: Int(v)
            case let v as Int8: Int(v)
            case let v as UInt32: UInt(v)
            case let v as UInt16: UInt(v)
            case let v as UInt8: UInt(v)
            default: a
            }
        }
        var size = 128
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let n = withVaList(arguments) { vsnprintf(&buffer, size, format, $0) }
            if n < 0 { self = format; return }
            if Int(n) < size {
                self = String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return
            }
            size = Int(n) + 1
        }
    }

    /// `%d` read as C's long: a Swift Int is 64 bits, and C's `%d` would take the low 32 of them.
    private static func widenedIntegers(_ format: String) -> String {
        var out = ""
        var inSpec = false, sized = false
        for c in format {
            if !inSpec {
                out.append(c)
                if c == "%" { (inSpec, sized) = (true, false) }
                continue
            }
            if c == "%" && out.last == "%" { out.append(c); inSpec = false; continue }
            if "hlqjztL".contains(c) { sized = true }
            if "diouxXc".contains(c) {
                if !sized && c != "c" { out.append("l") }
                inSpec = false
            } else if c.isLetter {
                inSpec = false
            }
            out.append(c)
        }
        return out
    }

    /// A number of seconds as people write it: "30", "1.5".
    package init(seconds: Double) {
        self = seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
    }

    /// Padded with spaces on the right to `width` characters (printf's `%-34s`).
    package func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

extension BinaryInteger {
    /// With commas between thousands, "1,047,552", as the messages have always shown sizes (and as
    /// Foundation's en_US `formatted()` did).
    package var grouped: String {
        let digits = String(self.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (self < 0 ? "-" : "") + out
    }
}
