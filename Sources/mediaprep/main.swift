import MediaPrep
print("mediaprep")
