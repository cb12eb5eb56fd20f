SELECT DISTINCT hash FROM checkpoint_files WHERE hash <> ''
