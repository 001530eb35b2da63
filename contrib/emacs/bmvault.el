;;; bmvault.el --- keep bmvault's editor buffer out of Emacs's own files

;; bmvault shreds the buffer of `bmvault note add', `quote add' and `edit'
;; ($XDG_RUNTIME_DIR/bmvault-edit-XXXXXX/note.md) itself; this stops Emacs from copying it
;; first: no backup file, no auto-save file, no lock file, not in recentf or savehist.
;; Load from your init file: (load "/path/to/bmvault.el")

(defun bmvault-private-buffer ()
  "Settings for a bmvault editor buffer."
  (when (and buffer-file-name (string-match-p "/bmvault-edit-[^/]*/" buffer-file-name))
    (setq-local backup-inhibited t)
    (setq-local make-backup-files nil)
    (setq-local create-lockfiles nil)
    (auto-save-mode -1)
    (when (boundp 'recentf-exclude)
      (add-to-list 'recentf-exclude "/bmvault-edit-"))))

(add-hook 'find-file-hook #'bmvault-private-buffer)

(provide 'bmvault)
;;; bmvault.el ends here
