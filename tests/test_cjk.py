"""Chinese and Japanese answers to two-option questions: read by substring, narrowly."""

import pytest

from vqagrade import Grader

GRADER = Grader()


@pytest.mark.parametrize(
    ("question", "pred", "label"),
    [
        pytest.param("Is the mass solid or cystic?", "嚢胞性病変です。", "B", id="ja-cystic"),
        pytest.param(
            "Which kidney has the cyst, left or right?", "左腎に嚢胞を認めます。", "A", id="ja-left"
        ),
        pytest.param(
            "Is this a T1 or T2 weighted image?", "T2強調画像です。", "B", id="latin-code"
        ),
        pytest.param("Is the anomaly in the upper or lower limb?", "下肢", "B", id="zh-bare"),
        pytest.param(
            "Is the pyelectasis unilateral or bilateral?",
            "双侧肾盂分离",
            "B",
            id="both-word-is-option",
        ),
    ],
)
def test_a_cjk_answer_naming_one_option_decides(question: str, pred: str, label: str) -> None:
    g = GRADER.grade(question, "x", pred)
    assert g.pred_label == label, g.reason


@pytest.mark.parametrize(
    ("question", "pred"),
    [
        pytest.param(
            "Is the retina attached or detached?", "網膜剥離は認められません。", id="ja-denial"
        ),
        pytest.param("Is the lesion benign or malignant?", "良性或恶性", id="both-options"),
        pytest.param("Is the mass solid or cystic?", "囊实性病变", id="mixed-compound"),
        pytest.param("Is the lesion benign or malignant?", "悪性が疑われます。", id="hedge"),
        pytest.param("Which lung is abnormal, left or right?", "右肺正常", id="normal-state"),
        pytest.param("Which is bigger, liver or spleen?", "肝脏较小", id="comparison"),
        pytest.param("Which kidney is normal, left or right?", "右肾积水", id="state-question"),
        pytest.param("Is the lesion in the left or right lobe?", "病灶位于肝", id="cut-off"),
    ],
)
def test_a_cjk_answer_that_is_not_plain_abstains(question: str, pred: str) -> None:
    # A denial, hedge, mixture, normal state, comparison or a cut-off answer is not read:
    # the row is left for the judge rather than guessed.
    g = GRADER.grade(question, "x", pred)
    assert g.pred_label is None, g.reason
