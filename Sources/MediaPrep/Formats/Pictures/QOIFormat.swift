/// QOI, the "Quite OK Image" format (game engines', screen recorders' and some editors' lossless
/// pictures): decoded by FFmpeg and sent as JPEG or PNG. Its 14-byte header holds its size, channels
/// and colour space and nothing else, so nothing in it names the sender; it was an unknown file,
/// sent as it came where no recipient's app shows it.
extension PictureFormats {
    /// "qoif", a width and height of at least 1, then 3 or 4 channels and colour space 0 or 1 (text
    /// starting "qoif" is not taken for one).
    static let qoi = FormatEntry(formats: [.qoi]) { h in
        h.at(0, "qoif") && h.b.count >= 14 && Bytes.be(h.b, 4, 4) > 0 && Bytes.be(h.b, 8, 4) > 0 && [3, 4].contains(h.b[12]) && h.b[13] <= 1 ? .qoi : nil
    }.picture(.qoi, decoder: .ffmpeg)
}
