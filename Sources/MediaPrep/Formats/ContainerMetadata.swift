extension PictureMetadata {
    /// What a WebP's RIFF chunks carry (EXIF with GPS in it, XMP), for `check`; none of it is sent.
    /// ICCP is the colour step's, not reported here.
    package init(webp data: [UInt8]) {
        self.init(blocks: "chunks")
        for (tag, body) in WebPChunks.chunks(data) {
            switch tag {
            case "EXIF":
                exif = true
                // Some writers keep JPEG's "Exif\0\0" before the TIFF header.
                let tiff = data[body].starts(with: Array("Exif\0\0".utf8)) ? data[body].dropFirst(6) : data[body]
                if Self.hasGPS(tiff) { gps = true }
            case "XMP ": xmp = true
            default: break
            }
        }
    }
}
