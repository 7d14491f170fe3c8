import UploadPlanner

/// One list of attachment kinds for probing, preparing and planning: the compose bar's UploadContent cases.
public typealias MediaKind = UploadContentKind
