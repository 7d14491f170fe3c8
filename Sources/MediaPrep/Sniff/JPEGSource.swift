/// A JPEG's header, parsed once: libjpeg's frame header, the marker segments, the Exif orientation
/// and the kinds of metadata, from one walk of the segments. Decoders and decisions take it as it is.
package struct JPEGSource: Sendable {
    let header: JPEGDecoder.Header
    let markers: JPEGMarkers
    let orientation: ExifOrientation
    let metadata: JPEGMetadata
    /// The embedded ICC profile (APP2 segments joined), if any.
    let iccProfile: [UInt8]?

    /// - Parameter data: the file, or enough of its start to hold every segment before the first scan.
    init(_ data: [UInt8]) throws {
        header = try JPEGDecoder.header(data)
        markers = JPEGMarkers(data)
        orientation = ExifOrientation.fromJPEG(data, markers: markers)
        metadata = JPEGMetadata(jpeg: data, markers: markers)
        iccProfile = EmbeddedProfile.fromJPEG(data, markers: markers)
    }

    /// Nothing to cut out: no metadata segment and no stray bytes between segments.
    var isClean: Bool { metadata.isEmpty && markers.extraneousBytes == 0 }

    /// Width and height as shown, after the Exif orientation.
    var displaySize: (width: Int, height: Int) {
        orientation.swapsDimensions ? (header.height, header.width) : (header.width, header.height)
    }
}
