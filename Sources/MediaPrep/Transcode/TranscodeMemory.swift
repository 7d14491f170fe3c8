extension VideoEncodePlan {
    /// What a transcode under this plan holds at its peak beyond the process's own start, so a batch
    /// charges it (`PixelBudget`) for its memory, not for one thumbnail frame: the source's frames in
    /// flight, about 15 bytes a source pixel, and x264's at the output size (medium: lookahead,
    /// frame threads, references), about 230 bytes an output pixel, plus 25 MB. Peaks measured
    /// (`/usr/bin/time`, release, less the 70 MB a process starts with) against this: 1080p → 360p
    /// 108 MB (109), 720p → 360p 66 (92), 720p → 720p 230 (251), 1080p → 1080p 520 (532), 4K HEVC
    /// → 1080p 620 (625).
    package func heldBytes(sourceWidth: Int, sourceHeight: Int) -> Int {
        let source = Double(max(0, sourceWidth)) * Double(max(0, sourceHeight))
        let long = Double(max(1, max(sourceWidth, sourceHeight)))
        let scale = min(1, Double(maxLongSide) / long)
        let bytes = 25e6 + 15 * source + 230 * source * scale * scale
        return bytes >= Double(Int.max / 2) ? Int.max / 2 : Int(bytes)
    }
}
