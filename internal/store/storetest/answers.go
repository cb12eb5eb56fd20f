package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/tandem-agent/tandem/internal/store"
)

// testPermissionAnswers: an answer to an open question is stored once; a
// second answer, through another handle, is ErrAnswered and changes
// nothing; a question never opened is ErrNotFound.
func testPermissionAnswers(t *testing.T, db DB) {
	ctx := context.Background()
	a, b := db(nil), db(nil)
	sess := newSession(t, a, "/p")
	if err := a.OpenQuestion(ctx, sess.ID, "perm_1"); err != nil {
		t.Fatal(err)
	}
	if got, err := b.QuestionAnswer(ctx, sess.ID, "perm_1"); err != nil || got != nil {
		t.Fatalf("open question's answer = %q, %v; want none", got, err)
	}
	if err := b.AnswerQuestion(ctx, sess.ID, "perm_1", []byte(`"first"`)); err != nil {
		t.Fatal(err)
	}
	if err := a.AnswerQuestion(ctx, sess.ID, "perm_1", []byte(`"second"`)); !errors.Is(err, store.ErrAnswered) {
		t.Fatalf("second answer: %v, want ErrAnswered", err)
	}
	if err := a.OpenQuestion(ctx, sess.ID, "perm_1"); err != nil {
		t.Fatal(err)
	}
	if got, err := a.QuestionAnswer(ctx, sess.ID, "perm_1"); err != nil || string(got) != `"first"` {
		t.Fatalf("answer = %q, %v; want the first", got, err)
	}
	if err := a.AnswerQuestion(ctx, sess.ID, "perm_none", []byte(`"x"`)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("answer to no question: %v, want ErrNotFound", err)
	}
	if err := a.OpenQuestion(ctx, "ses_nosuchsession", "perm_2"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("question of no session: %v, want ErrNotFound", err)
	}
}
