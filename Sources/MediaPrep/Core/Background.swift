/// `--background COLOR`: a name or `#rrggbb` (`#rgb`), as 0xRRGGBB.
package enum Background {
    static let names: [String: UInt32] = [
        "white": 0xFFFFFF, "black": 0x000000, "gray": 0x808080, "grey": 0x808080, "red": 0xFF0000, "green": 0x00FF00,
        "blue": 0x0000FF, "yellow": 0xFFFF00, "cyan": 0x00FFFF, "magenta": 0xFF00FF,
    ]

    package static func parse(_ s: String) -> UInt32? {
        let t = s.lowercased()
        if let named = names[t] { return named }
        guard t.hasPrefix("#") else { return nil }
        var hex = String(t.dropFirst())
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
        return v
    }

    package static func hex(_ c: UInt32) -> String {
        let h = String(c & 0xFFFFFF, radix: 16)
        return "#" + String(repeating: "0", count: 6 - h.count) + h
    }

    /// "#000000 (black)", or the hex alone.
    package static func describe(_ c: UInt32) -> String {
        let name = names.filter { $0.value == c }.map(\.key).min()  // "gray" before "grey"
        return hex(c) + (name.map { " (\($0))" } ?? "")
    }
}
