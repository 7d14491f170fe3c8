/// RIFF: WebP pictures, WAV sound, AVI movies, told by the form type after the size.
enum RIFFFormats {
    static let entry = FormatEntry(formats: [.webp, .wav, .avi], recognise: { h in
        guard h.at(0, "RIFF") else { return nil }
        return h.at(8, "WEBP") ? .webp : h.at(8, "WAVE") ? .wav : h.at(8, "AVI ") ? .avi : nil
    }, rewrite: { r, format in
        switch format {
        case .wav: return try AudioTagStripper.rewrite(r, format: .wav)
        case .avi: return try AVIMetadataStripper.rewrite(r)
        default: return nil
        }
    }).picture(.webp, decoder: .webp) { data, _, _ in MetadataRewrite.webp(data) }
}
