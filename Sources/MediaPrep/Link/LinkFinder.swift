import FoundationEssentials
import Glibc

/// Finds the URL a message's link preview is made for, as the app does: the first link that is not
/// a SimpleX link (those open a chat, they are never fetched).
package enum LinkFinder {
    /// The first previewable http(s) URL in `text` (`www.` links get `https://`), or nil.
    package static func firstPreviewable(in text: String) -> String? {
        candidates(in: text).first { !isSimplexLink($0) }
    }

    /// SimpleX contact, invitation and group links: `simplex:/…`, simplex.chat pages, and the
    /// short links served from *.simplex.im.
    package static func isSimplexLink(_ link: String) -> Bool {
        let l = link.lowercased()
        if l.hasPrefix("simplex:") { return true }
        guard let host = URL(string: link)?.host?.lowercased() else { return false }
        return host == "simplex.chat" || host.hasSuffix(".simplex.chat") || host == "simplex.im" || host.hasSuffix(".simplex.im")
    }

    /// Whitespace-separated words that are links, trailing punctuation taken off (as in "see https://x.org.").
    static func candidates(in text: String) -> [String] {
        var out: [String] = []
        for raw in text.split(whereSeparator: { $0.isWhitespace || $0 == "<" || $0 == ">" }) {
            var word = String(raw)
            while let last = word.last, ".,;:!?'\")]}".contains(last) {
                // Keep a closing bracket that closes one opened inside the link (Wikipedia style).
                if last == ")" && word.filter({ $0 == "(" }).count >= word.filter({ $0 == ")" }).count { break }
                word.removeLast()
            }
            while let first = word.first, "('\"[{".contains(first) { word.removeFirst() }
            let lower = word.lowercased()
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("simplex:") {
                if word.count > 8 { out.append(word) }
            } else if lower.hasPrefix("www."), word.count > 6, word.dropFirst(4).contains(".") {
                out.append("https://" + word)
            }
        }
        return out
    }
}
