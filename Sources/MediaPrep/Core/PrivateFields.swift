/// What a container's metadata says about its sender, in the words `check` prints.
package struct PrivateFields: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    package static let location = PrivateFields(rawValue: 1 << 0)
    package static let device = PrivateFields(rawValue: 1 << 1)
    package static let author = PrivateFields(rawValue: 1 << 2)
    package static let dates = PrivateFields(rawValue: 1 << 3)
    package static let title = PrivateFields(rawValue: 1 << 4)
    package static let comment = PrivateFields(rawValue: 1 << 5)
    package static let coverArt = PrivateFields(rawValue: 1 << 6)
    package static let xmp = PrivateFields(rawValue: 1 << 7)
    /// Anything else a tag block holds (encoder names, chapters, lyrics, private frames).
    package static let other = PrivateFields(rawValue: 1 << 8)
    /// Documents: the company or organisation an office suite writes beside the author.
    package static let company = PrivateFields(rawValue: 1 << 9)
    /// Documents: the template a document was made from, by its path on the author's disk.
    package static let template = PrivateFields(rawValue: 1 << 10)
    /// Paths on the sender's disk (a workbook's `absPath`, a link to a local file).
    package static let paths = PrivateFields(rawValue: 1 << 11)
    /// Thumbnails of the content (a PDF page's /Thumb, an office document's preview picture).
    package static let thumbnail = PrivateFields(rawValue: 1 << 12)
    /// Revision session ids (Word's `w:rsid*`), which tie edits to one editing run of one machine.
    package static let revisions = PrivateFields(rawValue: 1 << 13)
    /// Printer settings: the printer's name and its driver's private data.
    package static let printer = PrivateFields(rawValue: 1 << 14)
    /// An archive member's owner: user and group names and ids.
    package static let owner = PrivateFields(rawValue: 1 << 15)

    private static let names: [(PrivateFields, String)] = [
        (.location, "location"), (.device, "device"), (.author, "author"), (.company, "company"), (.owner, "owner names"),
        (.dates, "dates"), (.title, "title"), (.comment, "comment"), (.template, "template path"), (.paths, "file paths"),
        (.revisions, "revision ids"), (.printer, "printer settings"), (.thumbnail, "thumbnails"), (.coverArt, "cover art"),
        (.xmp, "XMP"), (.other, "other tags"),
    ]

    /// "location, device, dates removed"
    package var removal: String { Self.names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + " removed" }

}
