/// The seconds of video a phone keeps beside a still: a Google Motion Photo's MP4 appended after the
/// JPEG's EOI (its XMP says `MotionPhoto` or `MicroVideo`), a Samsung motion photo's after
/// "MotionPhoto_Data" in the JPEG's trailer or in a HEIC's top-level `mpvd` box. Found by structure
/// (an ISO file whose first box is `ftyp` and that holds a `moov`), never by name.
enum MotionPhoto {
    /// The embedded MP4's bytes in `data` (a JPEG whose EOI is at `jpegEnd`, or a HEIC), or nil.
    static func video(in data: [UInt8], jpegEnd: Int?) -> Range<Int>? {
        if let end = jpegEnd, end < data.count {
            let trailer = Array(data[end..<min(data.count, end + 65_536)])
            // Samsung: "MotionPhoto_Data" then the MP4; Google: the MP4 right after EOI (or after padding).
            if let marker = Bytes.find(Array("MotionPhoto_Data".utf8), in: trailer), let v = isoFile(data, from: end + marker + 16) { return v }
            var at = end
            while at + 8 <= min(data.count, end + 4096) {
                if let v = isoFile(data, from: at) { return v }
                at += 1
            }
            return nil
        }
        guard jpegEnd == nil, let top = PictureBoxes.children(data, 0..<data.count, topLevel: true),
              let mpvd = top.boxes.first(where: { $0.type == "mpvd" }) else { return nil }
        return isoFile(data, from: mpvd.body.lowerBound).map { $0.lowerBound..<min($0.upperBound, mpvd.body.upperBound) }
    }

    /// An ISO file starting at `at`: `ftyp` first, a `moov` among its top-level boxes; its extent.
    private static func isoFile(_ data: [UInt8], from at: Int) -> Range<Int>? {
        guard at + 8 <= data.count, Bytes.ascii(data, at + 4, 4) == "ftyp",
              let walk = PictureBoxes.children(data, at..<data.count, topLevel: true),
              walk.boxes.first?.type == "ftyp", walk.boxes.contains(where: { $0.type == "moov" }) else { return nil }
        return at..<walk.end
    }

    /// Whether a JPEG's header says it is a motion photo (Google's XMP): read it whole to find the video.
    static func claimed(_ head: [UInt8]) -> Bool {
        Bytes.find(Array("MotionPhoto".utf8), in: head, within: 131_072) != nil
            || Bytes.find(Array("MicroVideo".utf8), in: head, within: 131_072) != nil
    }
}
