package gitrepo

import (
	"context"
	"time"
)

// Init makes dir a new git repository whose one commit, authored by Assay
// at when, holds every file in it, and returns the commit's id: the same
// files at the same time are the same commit.
func Init(ctx context.Context, dir, message string, when time.Time) (string, error) {
	if _, err := run(ctx, dir, nil, "init", "--quiet"); err != nil {
		return "", err
	}
	if _, err := run(ctx, dir, nil, "add", "--all"); err != nil {
		return "", err
	}
	return Commit(ctx, dir, message, when)
}
