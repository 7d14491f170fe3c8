/// Edits to an XML part of a document package, by byte range: elements dropped, their text emptied or
/// replaced, attributes dropped or emptied. The rest of the part is byte for byte what it was.
struct XMLEdits {
    let d: [UInt8]
    private(set) var edits: [(Range<Int>, [UInt8])] = []
    private(set) var found: PrivateFields = []

    init(_ d: [UInt8]) { self.d = d }

    /// What the rules ask of each tag, in document order. `rule` sees an opening or empty tag and
    /// answers what becomes of it.
    enum Action { case keep, drop(PrivateFields), empty(PrivateFields), replaceText([UInt8], PrivateFields) }

    mutating func walk(tags rule: (SVGTags.Tag, XMLEdits) -> Action, attributes: (SVGTags.Tag, String) -> (drop: Bool, PrivateFields)?) {
        var tags = SVGTags(d)
        // An element being dropped or emptied: its name, depth, where it started and what becomes of it.
        var open: (name: String, depth: Int, start: Int, contentStart: Int, action: Action)? = nil
        var depth = 0
        while let tag = tags.next() {
            if let o = open {
                if tag.closing {
                    if tag.name == o.name && depth == o.depth {
                        finish(o.action, element: o.start..<tag.range.upperBound, content: o.contentStart..<tag.range.lowerBound)
                        open = nil
                    } else if tag.name == o.name { depth -= 1 }
                } else if tag.name == o.name && !tag.selfClosing { depth += 1 }
                continue
            }
            if tag.closing { continue }
            switch rule(tag, self) {
            case .keep:
                for a in tag.attributes {
                    guard let (drop, fields) = attributes(tag, a.name) else { continue }
                    guard drop || !a.value.isEmpty else { continue }
                    found.formUnion(fields)
                    edits.append(drop ? (attributeRange(a.value), []) : (a.value, []))
                }
            case let action:
                if tag.selfClosing {
                    if case .drop = action { finish(action, element: tag.range, content: tag.range.upperBound..<tag.range.upperBound) }
                    else if case .replaceText(let text, let fields) = action, !text.isEmpty {
                        // <x/> becomes <x>text</x>
                        found.formUnion(fields)
                        let head = Array(d[tag.range.lowerBound..<(tag.range.upperBound - 2)]) + [0x3E]
                        edits.append((tag.range, head + text + Array("</\(tag.name)>".utf8)))
                    }
                } else {
                    open = (tag.name, 0, tag.range.lowerBound, tag.range.upperBound, action)
                    depth = 0
                }
            }
        }
    }

    /// A void HTML element (`<meta …>`): the tag alone is the element.
    mutating func dropTag(_ tag: SVGTags.Tag, _ fields: PrivateFields) {
        found.formUnion(fields)
        edits.append((tag.range, []))
    }

    mutating func blankComments(where keep: (ArraySlice<UInt8>) -> Bool = { _ in false }) {
        var tags = SVGTags(d)
        while tags.next() != nil {}
        for c in tags.comments where c.count > 7 && !keep(d[(c.lowerBound + 4)..<(c.upperBound - 3)])
            && d[(c.lowerBound + 4)..<(c.upperBound - 3)].contains(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) {
            found.insert(.comment)
            edits.append((c, []))
        }
    }

    private mutating func finish(_ action: Action, element: Range<Int>, content: Range<Int>) {
        switch action {
        case .keep: break
        case .drop(let fields):
            found.formUnion(fields)
            edits.append((element, []))
        case .empty(let fields):
            guard d[content].contains(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) else { return }
            found.formUnion(fields)
            edits.append((content, []))
        case .replaceText(let text, let fields):
            guard !d[content].elementsEqual(text) else { return }
            found.formUnion(fields)
            edits.append((content, text))
        }
    }

    /// ` name="value"`: from the white space before the name to the closing quote.
    private func attributeRange(_ value: Range<Int>) -> Range<Int> {
        var i = value.lowerBound - 2  // before the opening quote
        func space(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        while i > 0, space(d[i]) { i -= 1 }
        if i > 0, d[i] == 0x3D { i -= 1 }
        while i > 0, space(d[i]) { i -= 1 }
        while i > 0, !space(d[i]), d[i] != 0x3C { i -= 1 }
        return (space(d[i]) ? i : i + 1)..<(value.upperBound + 1)
    }

    /// The value of attribute `name` of `tag`, as text.
    func value(_ tag: SVGTags.Tag, _ name: String) -> String? {
        tag.attributes.first { $0.name == name }.map { String(decoding: d[$0.value], as: UTF8.self) }
    }

    /// The part with every edit made; nil when there was none.
    var result: [UInt8]? {
        guard !edits.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(d.count)
        var at = 0
        for (range, bytes) in edits.sorted(by: { $0.0.lowerBound < $1.0.lowerBound }) where range.lowerBound >= at {
            out += d[at..<range.lowerBound]
            out += bytes
            at = range.upperBound
        }
        out += d[at...]
        return out
    }
}
