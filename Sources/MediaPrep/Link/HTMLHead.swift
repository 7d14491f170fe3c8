import FoundationEssentials
import Glibc

/// What a link card needs from a page's head: OpenGraph fields and their usual fallbacks.
struct HTMLHead: Equatable {
    var title: String?
    var description: String?
    var image: String?

    /// Decodes `bytes` in the page's charset (the Content-Type header's, else `<meta charset>`,
    /// else UTF-8 when valid, else windows-1252) and reads the meta tags.
    init(bytes: [UInt8], contentType: String?) {
        let text = Self.decode(bytes, charset: Self.charset(contentType: contentType) ?? Self.metaCharset(bytes))
        var og: [String: String] = [:]
        var named: [String: String] = [:]
        var title: String? = nil
        var i = text.startIndex
        while let lt = text[i...].firstIndex(of: "<") {
            guard let gt = text[lt...].firstIndex(of: ">") else { break }
            let tag = text[text.index(after: lt)..<gt]
            let lower = tag.lowercased()
            if lower.hasPrefix("meta") {
                let attrs = Self.attributes(tag.dropFirst(4))
                if let content = attrs["content"] {
                    // The first of a repeated tag wins (og:image may list several images).
                    if let p = (attrs["property"] ?? attrs["name"])?.lowercased(), p.hasPrefix("og:") {
                        if og[p] == nil { og[p] = content }
                    } else if let n = (attrs["name"] ?? attrs["property"])?.lowercased(), named[n] == nil {
                        named[n] = content
                    }
                }
            } else if lower.hasPrefix("title"), title == nil {
                if let end = text.rangeIgnoringASCIICase(of: "</title", from: gt) {
                    title = String(text[text.index(after: gt)..<end.lowerBound])
                }
            } else if lower.hasPrefix("/head") || lower.hasPrefix("body") {
                break
            } else if lower.hasPrefix("!--"), let end = text[lt...].firstRange(of: "-->") {
                i = end.upperBound
                continue
            } else if lower.hasPrefix("script") || lower.hasPrefix("style") {
                let name = lower.hasPrefix("script") ? "</script" : "</style"
                if let end = text.rangeIgnoringASCIICase(of: name, from: gt) {
                    i = end.upperBound
                    continue
                }
            }
            i = text.index(after: gt)
        }
        func clean(_ s: String?) -> String? {
            guard let s else { return nil }
            let t = Self.collapse(Self.decodeEntities(s))
            return t.isEmpty ? nil : t
        }
        self.title = clean(og["og:title"]) ?? clean(named["twitter:title"]) ?? clean(title)
        self.description = clean(og["og:description"]) ?? clean(named["description"]) ?? clean(named["twitter:description"])
        self.image = clean(og["og:image"]) ?? clean(og["og:image:url"]) ?? clean(og["og:image:secure_url"])
            ?? clean(named["twitter:image"]) ?? clean(named["twitter:image:src"])
    }

    init(title: String?, description: String?, image: String?) {
        (self.title, self.description, self.image) = (title, description, image)
    }

    /// `charset=` from a Content-Type value.
    static func charset(contentType: String?) -> String? {
        guard let ct = contentType?.lowercased(), let r = ct.firstRange(of: "charset=") else { return nil }
        let v = ct[r.upperBound...].prefix { $0 != ";" && $0 != " " }.trimming { $0 == "\"" || $0 == "'" }
        return v.isEmpty ? nil : v
    }

    /// `<meta charset=…>` or `<meta http-equiv="Content-Type" content="…; charset=…">` in the first
    /// 4 KiB, read as ASCII (every charset a page may declare this way is ASCII-compatible there).
    static func metaCharset(_ bytes: [UInt8]) -> String? {
        let head = String(decoding: bytes.prefix(4096).map { $0 < 0x80 ? $0 : 0x20 }, as: UTF8.self).lowercased()
        var i = head.startIndex
        while let r = head[i...].firstRange(of: "<meta") {
            guard let gt = head[r.upperBound...].firstIndex(of: ">") else { break }
            let attrs = attributes(head[r.upperBound..<gt])
            if let c = attrs["charset"], !c.isEmpty { return c }
            if attrs["http-equiv"] == "content-type", let c = charset(contentType: attrs["content"]) { return c }
            i = gt
        }
        return nil
    }

    static func decode(_ bytes: [UInt8], charset: String?) -> String {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return String(decoding: bytes.dropFirst(3), as: UTF8.self) }
        switch charset?.lowercased() {
        case "utf-8", "utf8", "unicode-1-1-utf-8":
            return String(decoding: bytes, as: UTF8.self)
        // WHATWG: these labels all mean windows-1252, a superset of Latin-1.
        case "iso-8859-1", "latin1", "l1", "iso8859-1", "iso_8859-1", "cp1252", "windows-1252", "us-ascii", "ascii", "cp819", "ibm819":
            return windows1252(bytes)
        case "iso-8859-2", "latin2": return Iconv.decode(bytes, from: "ISO-8859-2") ?? windows1252(bytes)
        case "windows-1251", "cp1251": return Iconv.decode(bytes, from: "WINDOWS-1251") ?? windows1252(bytes)
        case "windows-1250", "cp1250": return Iconv.decode(bytes, from: "WINDOWS-1250") ?? windows1252(bytes)
        case "shift_jis", "shift-jis", "sjis": return Iconv.decode(bytes, from: "SHIFT_JIS") ?? windows1252(bytes)
        case "euc-jp": return Iconv.decode(bytes, from: "EUC-JP") ?? windows1252(bytes)
        case "utf-16", "utf-16le": return Iconv.decode(bytes, from: "UTF-16LE") ?? windows1252(bytes)
        case "utf-16be": return Iconv.decode(bytes, from: "UTF-16BE") ?? windows1252(bytes)
        default:
            return String(validating: bytes, as: UTF8.self) ?? windows1252(bytes)
        }
    }

    /// Windows-1252 by table: Latin-1 plus the 0x80–0x9F punctuation pages actually use.
    static func windows1252(_ bytes: [UInt8]) -> String {
        let high: [UInt32] = [0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
                              0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178]
        var s = String.UnicodeScalarView()
        for b in bytes {
            let v = (0x80...0x9F).contains(b) ? high[Int(b) - 0x80] : UInt32(b)
            if let u = Unicode.Scalar(v) { s.append(u) }
        }
        return String(s)
    }

    /// `name="v"`, `name='v'` and `name=v` pairs, names lowercased.
    static func attributes(_ s: Substring) -> [String: String] {
        var out: [String: String] = [:]
        var i = s.startIndex
        func skipSpace() { while i < s.endIndex, s[i].isWhitespace || s[i] == "/" { i = s.index(after: i) } }
        while true {
            skipSpace()
            guard i < s.endIndex else { break }
            let nameStart = i
            while i < s.endIndex, !s[i].isWhitespace, s[i] != "=", s[i] != "/" { i = s.index(after: i) }
            let name = s[nameStart..<i].lowercased()
            skipSpace()
            var value = ""
            if i < s.endIndex, s[i] == "=" {
                i = s.index(after: i)
                while i < s.endIndex, s[i].isWhitespace { i = s.index(after: i) }
                if i < s.endIndex, s[i] == "\"" || s[i] == "'" {
                    let q = s[i]
                    i = s.index(after: i)
                    let start = i
                    while i < s.endIndex, s[i] != q { i = s.index(after: i) }
                    value = String(s[start..<i])
                    if i < s.endIndex { i = s.index(after: i) }
                } else {
                    let start = i
                    while i < s.endIndex, !s[i].isWhitespace { i = s.index(after: i) }
                    value = String(s[start..<i])
                }
            }
            if !name.isEmpty, out[name] == nil { out[name] = value }
        }
        return out
    }

    static let entities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "copy": "©", "reg": "®",
        "trade": "™", "hellip": "…", "mdash": "—", "ndash": "–", "lsquo": "‘", "rsquo": "’", "ldquo": "“",
        "rdquo": "”", "laquo": "«", "raquo": "»", "bull": "•", "middot": "·", "euro": "€", "pound": "£",
        "yen": "¥", "cent": "¢", "deg": "°", "times": "×", "eacute": "é", "egrave": "è", "ecirc": "ê",
        "aacute": "á", "agrave": "à", "acirc": "â", "auml": "ä", "ouml": "ö", "uuml": "ü", "szlig": "ß",
        "ccedil": "ç", "ntilde": "ñ", "oacute": "ó", "iacute": "í", "uacute": "ú", "Auml": "Ä", "Ouml": "Ö",
        "Uuml": "Ü", "Eacute": "É", "oslash": "ø", "aring": "å", "aelig": "æ",
    ]

    /// `&amp;`, `&#39;`, `&#x1F600;` and the common named entities; anything else is left as written.
    static func decodeEntities(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = ""
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == "&", let semi = s[i...].prefix(12).firstIndex(of: ";") {
                let name = s[s.index(after: i)..<semi]
                var replacement: String? = nil
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    replacement = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
                } else if name.hasPrefix("#") {
                    replacement = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String($0) }
                } else {
                    replacement = entities[String(name)]
                }
                if let r = replacement {
                    out += r
                    i = s.index(after: semi)
                    continue
                }
            }
            out.append(s[i])
            i = s.index(after: i)
        }
        return out
    }

    /// Runs of white space (incl. newlines and no-break spaces) become one space; ends trimmed.
    static func collapse(_ s: String) -> String {
        s.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Cut at a word boundary to at most `limit` characters, with an ellipsis when cut.
    static func trim(_ s: String, to limit: Int) -> String {
        guard s.count > limit else { return s }
        let cut = s.prefix(limit - 1)
        let atSpace = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
        return (atSpace.count > limit / 2 ? String(atSpace) : String(cut)) + "…"
    }
}
