"""The agent's parts without a model server or a measurement: the editor's confinement, tool
dispatch errors, feedback text, prompts, trajectory files, retries, backend conversions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passnet.agent.anthropic_backend import to_anthropic, to_anthropic_tools
from passnet.agent.editor import EditorError, PassFolderEditor
from passnet.agent.feedback import format_feedback
from passnet.agent.hf_backend import parse_tool_calls
from passnet.agent.llm import (
    Completion,
    GenerateConfig,
    LLMConfigError,
    LLMUnavailable,
    Retryable,
    ToolCall,
    Usage,
    completion_from_message,
    get_backend,
    wire_messages,
    with_retries,
)
from passnet.agent.prompting import WORKED_EXAMPLE, graph_detail, initial_messages
from passnet.agent.replay_backend import ReplayBackend, ReplayExhausted
from passnet.agent.tools import TOOL_NAMES, TOOLS, ToolEnv
from passnet.agent.trajectory import (
    AttemptRecord,
    Budget,
    TrajectoryWriter,
    folder_hash,
    read_trajectories,
)
from passnet.core.results import (
    CandidateSpec,
    Comparison,
    Environment,
    Parameters,
    Scores,
    Status,
    TaskResult,
    VariantResult,
)
from passnet.dataset.task import load_task

ROOT = Path(__file__).resolve().parents[1]
TASK = ROOT / "examples" / "tasks" / "bert_add_layer_norm"
EXAMPLE_PASS = ROOT / "examples" / "passes" / "add_layer_norm" / "FuseAddLayerNorm.py"


# -- editor --------------------------------------------------------------------------------


@pytest.fixture
def editor(tmp_path: Path) -> PassFolderEditor:
    (tmp_path / "pass").mkdir()
    return PassFolderEditor(tmp_path / "pass")


@pytest.mark.parametrize("path", ["../evil.py", "a/../../evil.py", "/etc/passwd", "/tmp/x.py"])
def test_editor_refuses_paths_outside(editor: PassFolderEditor, path: str) -> None:
    with pytest.raises(EditorError, match="outside the pass folder|'..' is not allowed"):
        editor.create(path, "x = 1\n")
    assert not (editor.root.parent / "evil.py").exists()


def test_editor_refuses_symlinks(editor: PassFolderEditor, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (editor.root / "out").symlink_to(outside, target_is_directory=True)
    (editor.root / "inner.py").write_text("a\n")
    (editor.root / "alias.py").symlink_to(editor.root / "inner.py")
    for path in ("out/x.py", "alias.py"):
        with pytest.raises(EditorError, match="symbolic link"):
            editor.create(path, "x\n")
    with pytest.raises(EditorError, match="symbolic link"):
        editor.view("alias.py")
    assert list(outside.iterdir()) == []


def test_editor_commands(editor: PassFolderEditor) -> None:
    assert "created Rule.py (3 lines)" == editor.create("pass_dir/Rule.py", "a = 1\nb = 2\nc = 3\n")
    assert editor.create(f"{editor.root}/sub/Helper.py", "x\n").startswith("created sub/Helper.py")
    assert "Rule.py (" in editor.view(".") and "sub/Helper.py" in editor.view("/pass_dir")
    assert "     2\tb = 2" in editor.view("Rule.py", [2, 2])
    out = editor.str_replace("Rule.py", "b = 2", "b = 20")
    assert "edited Rule.py" in out and "b = 20" in out
    with pytest.raises(EditorError, match="not found"):
        editor.str_replace("Rule.py", "zzz", "y")
    editor.create("Dup.py", "x = 1\nx = 1\n")
    with pytest.raises(EditorError, match=r"occurs 2 times in Dup.py \(lines 1, 2\)"):
        editor.str_replace("Dup.py", "x = 1", "y")
    assert "inserted 1 line" in editor.insert("Rule.py", 0, "import math")
    assert (editor.root / "Rule.py").read_text().startswith("import math\na = 1\nb = 20")
    with pytest.raises(EditorError, match="insert_line must be in"):
        editor.insert("Rule.py", 99, "x")
    with pytest.raises(EditorError, match="no such file"):
        editor.view("Missing.py")
    with pytest.raises(EditorError, match="view_range"):
        editor.view("Rule.py", [5, 2])


# -- tool dispatch -------------------------------------------------------------------------


def _fake_evaluate(task, pass_dir):  # noqa: ANN001, ANN202
    raise AssertionError("no evaluation in these tests")


@pytest.fixture
def env(tmp_path: Path) -> ToolEnv:
    return ToolEnv(load_task(TASK), tmp_path / "pass", tmp_path / "snapshots", _fake_evaluate)


def _call(name: str, arguments: str) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=arguments)


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("file_editor", '{"command": "view", "path": ', "not valid JSON"),
        ("file_editor", "[1, 2]", "must be a JSON object"),
        ("shell", "{}", "unknown tool 'shell'; the tools are: view_task, file_editor"),
        ("", "garbage", "without a tool name"),
        ("file_editor", '{"path": "x.py"}', "missing argument 'command'"),
        ("file_editor", '{"command": "create", "path": "x.py"}', "missing argument 'file_text'"),
        ("file_editor", '{"command": "delete", "path": "x.py"}', "unknown command 'delete'"),
        ("file_editor", '{"command": "create", "path": 3, "file_text": ""}', "must be a str"),
        ("file_editor", '{"command": "view", "path": "../x"}', "'..' is not allowed"),
        ("view_task", '{"graph": "graphs/nope"}', "no graph 'graphs/nope'"),
    ],
)
def test_tool_errors_go_back_to_the_model(env: ToolEnv, name, arguments, message) -> None:
    result = env.dispatch(_call(name, arguments), step=0)
    assert result.is_error and result.content.startswith("error: ") and message in result.content


def test_tools_work(env: ToolEnv) -> None:
    create = json.dumps({"command": "create", "path": "R.py", "file_text": "x = 1\n"})
    assert not env.dispatch(_call("file_editor", create), 0).is_error
    insert = json.dumps(
        {"command": "insert", "path": "R.py", "insert_line": "1", "insert_text": "y"}
    )
    assert "inserted" in env.dispatch(_call("file_editor", insert), 0).content
    view = env.dispatch(_call("view_task", ""), 0)
    assert "# Task `bert_add_layer_norm`" in view.content and "already holds: R.py" in view.content
    graph = env.task.variants[0].graph
    detail = env.dispatch(_call("view_task", json.dumps({"graph": graph})), 0).content
    assert f"# Graph `{graph}`" in detail and "mean" in detail
    finish = env.dispatch(_call("finish", "{}"), 0)
    assert finish.finished and not finish.is_error
    assert [t["function"]["name"] for t in TOOLS] == TOOL_NAMES


# -- feedback ------------------------------------------------------------------------------


def _result(variants: list[VariantResult], AS: float) -> TaskResult:  # noqa: N803
    env = Environment(
        device="cpu", device_name="x", torch="-", triton=None, python="-", platform="-"
    )
    return TaskResult(
        task="t",
        candidate=CandidateSpec(kind="pass", pass_dir="p"),
        parameters=Parameters(),
        environment=env,
        scores=Scores(
            AS=AS, ES={}, S={}, fast_p=0.0, subgraph_correct_rate=0.5, gmean_speedup_correct=1.2
        ),
        task_correct=False,
        variants=variants,
        wall_seconds=1.0,
    )


def test_feedback_is_compact_and_groups_reasons() -> None:
    why = "no pass matched this graph. R: argument 4 (eps): pattern has 1e-05, graph has 1e-12"
    no_match = [
        VariantResult(graph=f"graphs/g{i}", dtype="float16", status=Status.NO_MATCH, error=why)
        for i in range(30)
    ]
    ok = VariantResult(
        graph="graphs/ok",
        dtype="float32",
        status=Status.OK,
        matches={"R": 2},
        speedup=1.25,
        comparison=Comparison(tightest_passing_t=-6, max_abs_diff=1e-7),
    )
    text = format_feedback(_result([ok, *no_match], 0.15), best_as=0.3)
    lines = text.splitlines()
    assert lines[0].startswith("AS = 0.1500 (best so far 0.3000) | correct 1/31")
    assert any("graphs/ok" in ln and "ok" in ln and "1.250x" in ln and "-6" in ln for ln in lines)
    assert "... 7 more graphs; all statuses: no_match 30, ok 1" in text
    assert text.count(why) == 1 and "why (30 graphs, e.g. graphs/g0)" in text
    assert len(text) < 4000


def test_feedback_says_where_a_correct_graph_misses_the_strict_levels() -> None:
    """Correct only from t = -3: AS weighs t = -5..-3 most, so the author is told which
    element fails t = -4 (after every failure's reason)."""
    where = "at t = -4: output 0 [2, 5]: 1.00391 vs reference 1 (|d| 0.0039 > 0.0036)"
    loose = VariantResult(graph="graphs/loose", dtype="float16", status=Status.OK, speedup=1.1,
                          comparison=Comparison(tightest_passing_t=-3, detail=where))  # fmt: skip
    strict = VariantResult(graph="graphs/strict", dtype="float32", status=Status.OK, speedup=1.1,
                           comparison=Comparison(tightest_passing_t=-5, detail="at t = -6: x"))  # fmt: skip
    wrong = VariantResult(graph="graphs/wrong", dtype="float32", status=Status.INCORRECT,
                          error="outputs differ")  # fmt: skip
    text = format_feedback(_result([loose, strict, wrong], 0.5), best_as=0.5)
    assert f"why (graphs/loose): correct only from t = -3: {where}" in text
    assert "at t = -6" not in text  # correct at -5: nothing to fix for AS
    assert text.index("why (graphs/wrong)") < text.index("why (graphs/loose)")


# -- prompts -------------------------------------------------------------------------------


def test_worked_example_is_the_bundled_pass() -> None:
    assert WORKED_EXAMPLE.read_text() == EXAMPLE_PASS.read_text()


def test_prompts_state_contract_task_and_example() -> None:
    task = load_task(TASK)
    system, user = initial_messages(task, max_steps=50, b=0.1, device="cpu")
    assert system["role"] == "system" and user["role"] == "user"
    for text in (
        "sorted_output_pass_rule_names.json",
        "replacement_func()",
        "@torch.fx.wrap",
        "at most 50 turns",
        "Triton interpreter",
        "def fused_add_layer_norm",
        "from passnet.passes.launch import cached",  # the cheap launch path, taught and shown
        "@cached\n@triton.jit",
    ):
        assert text in system["content"], text
    body = user["content"]
    assert body.count("class GraphModule") == 1  # one shared model.py, shown once
    assert "`graphs/float16/4_cut_8x128_float16` (float16): [128], [128], [8, 128, 128]" in body
    assert str(TASK) not in body + system["content"]  # no absolute paths: replays anywhere
    assert "min -2.74" in graph_detail(task, task.variants[0].graph)


def test_prompts_state_a_recorded_input_layout(tmp_path: Path) -> None:
    """A strided (transposed) input is named as such: a kernel must index it by its strides."""
    from passnet.dataset.task import write_task
    from passnet.graph.sample import TensorMeta, write_sample

    code = (
        "import torch\n\n\nclass GraphModule(torch.nn.Module):\n"
        "    def forward(self, x: torch.Tensor):\n        c = x.contiguous()\n"
        "        return (torch.relu(c),)\n"
    )
    meta = TensorMeta(name="x", shape=[4, 8], dtype="torch.float32", mean=0.0, std=1.0,
                      stride=[1, 4])  # fmt: skip
    sample = write_sample(tmp_path / "s", code, [meta], {"model_name": "t"})
    task = write_task(tmp_path / "task", [sample.path])
    _, user = initial_messages(task, max_steps=5, b=0.1, device="cpu")
    assert "[4, 8] stride [1, 4]" in user["content"]
    assert "stride [1, 4] (not contiguous)" in graph_detail(task, task.variants[0].graph)


# -- trajectories --------------------------------------------------------------------------


def _record(task_name: str, attempt: int) -> AttemptRecord:
    return AttemptRecord(
        sample_dir="/t",
        messages=[{"role": "user", "content": "x"}],
        task_name=task_name,
        attempt=attempt,
        backend="openai",
        config=GenerateConfig(model="m"),
        budget=Budget(),
        parameters=Parameters(),
        device="cpu",
        stop_reason="finish",
        final_AS=0.5,
    )


def test_writer_repairs_a_torn_line_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    writer = TrajectoryWriter(path)
    writer.append(_record("a", 0))
    with open(path, "a") as f:
        f.write('{"sample_dir": "/t", "messa')  # killed mid-write
    writer = TrajectoryWriter(path)
    writer.append(_record("a", 1))
    assert [r.key for r in read_trajectories(path)] == [("a", 0), ("a", 1)]
    assert set(writer.finished()) == {("a", 0), ("a", 1)}
    line = json.loads(path.read_text().splitlines()[0])
    assert {"sample_dir", "messages"} <= set(line)


def test_folder_hash_ignores_bytecode(tmp_path: Path) -> None:
    (tmp_path / "R.py").write_text("x = 1\n")
    before = folder_hash(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "R.cpython-311.pyc").write_bytes(b"\0")
    assert folder_hash(tmp_path) == before
    (tmp_path / "R.py").write_text("x = 2\n")
    assert folder_hash(tmp_path) != before


# -- LLM layer -----------------------------------------------------------------------------


def test_with_retries_backs_off_then_gives_up() -> None:
    config = GenerateConfig(model="m", max_retries=3, backoff_s=1.0, backoff_max_s=3.0)
    sleeps: list[float] = []
    attempts = iter([Retryable("HTTP 429", retry_after=2.5), Retryable("HTTP 500"), "ok"])

    def call() -> str:
        item = next(attempts)
        if isinstance(item, Exception):
            raise item
        return item

    assert with_retries(call, config, sleep=sleeps.append) == ("ok", 2)
    assert sleeps[0] == 2.5 and 1.0 <= sleeps[1] <= 2.0  # Retry-After honoured, then jittered
    with pytest.raises(LLMUnavailable, match="failed 4 time"):
        with_retries(lambda: (_ for _ in ()).throw(Retryable("HTTP 503")), config, sleeps.append)
    assert max(sleeps) <= 3.0


def test_usage_cost_and_message_round_trip() -> None:
    config = GenerateConfig(model="m", price_input_per_mtok=1.0, price_output_per_mtok=4.0)
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=500_000).priced(config)
    assert usage.cost_usd == pytest.approx(3.0) and usage.total_tokens == 1_500_000
    c = Completion(
        content="hi", reasoning="think", tool_calls=[ToolCall(id="a", name="f", arguments="{}")]
    )
    msg = c.message()
    assert msg["tool_calls"][0]["function"] == {"name": "f", "arguments": "{}"}
    assert completion_from_message(msg).message() == msg
    assert "reasoning_content" not in wire_messages([msg])[0]


def test_replay_backend_plays_back_then_stops() -> None:
    messages = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": "one"},
        {"role": "tool", "tool_call_id": "a", "content": "y"},
        {"role": "assistant", "content": "two"},
    ]
    backend = get_backend("replay", messages=messages, usages=[Usage(prompt_tokens=3)])
    config = GenerateConfig(model="m")
    first = backend.generate([], [], config)
    assert first.content == "one" and first.usage.prompt_tokens == 3
    assert backend.generate([], [], config).content == "two"
    with pytest.raises(ReplayExhausted):
        backend.generate([], [], config)
    assert isinstance(backend, ReplayBackend)


def test_anthropic_conversion() -> None:
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "task"},
        {
            "role": "assistant",
            "content": "ok",
            "tool_calls": [
                {
                    "id": "t1",
                    "type": "function",
                    "function": {"name": "view_task", "arguments": "{}"},
                },
                {
                    "id": "t2",
                    "type": "function",
                    "function": {"name": "finish", "arguments": "{bad"},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "t1", "content": "r1"},
        {"role": "tool", "tool_call_id": "t2", "content": "r2"},
    ]
    system, out = to_anthropic(messages)
    assert system == "sys" and [m["role"] for m in out] == ["user", "assistant", "user"]
    assert out[1]["content"][1] == {
        "type": "tool_use",
        "id": "t1",
        "name": "view_task",
        "input": {},
    }
    assert out[1]["content"][2]["input"] == {"_unparsed_arguments": "{bad"}
    assert [b["tool_use_id"] for b in out[2]["content"]] == ["t1", "t2"]
    assert to_anthropic_tools(TOOLS)[0]["input_schema"]["type"] == "object"


def test_anthropic_backend_missing_package_is_clear() -> None:
    try:
        import anthropic  # noqa: F401
    except ImportError:
        with pytest.raises(LLMConfigError, match="pip install anthropic"):
            get_backend("anthropic")
    else:
        pytest.skip("anthropic is installed")


def test_hf_tool_call_parsing() -> None:
    text = (
        "<think>plan</think>Let me look.\n<tool_call>\n"
        '{"name": "file_editor", "arguments": {"command": "view", "path": "."}}\n</tool_call>\n'
        "<tool_call>{not json}</tool_call>"
    )
    content, reasoning, calls = parse_tool_calls(text, "7")
    assert content == "Let me look." and reasoning == "plan"
    assert calls[0].name == "file_editor" and json.loads(calls[0].arguments)["path"] == "."
    assert calls[1].name == "" and calls[1].id == "call_7_1"


def test_hf_backend_smoke(tmp_path: Path) -> None:
    """A tiny random Llama built here (no download) answers through the hf backend."""
    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    import torch

    words = ["<unk>", "<eos>", "user", "assistant", ":", "hi", "<tool_call>", "</tool_call>"]
    tok = tokenizers.Tokenizer(
        tokenizers.models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>")
    )
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    hf_tok = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", eos_token="<eos>", pad_token="<eos>"
    )
    hf_tok.chat_template = (
        "{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} {% endfor %}assistant :"
    )
    config = transformers.LlamaConfig(
        vocab_size=len(words),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=64,
    )
    hf_tok.save_pretrained(tmp_path)
    torch.manual_seed(0)  # random weights: seeded so the reply is the same on every machine
    transformers.LlamaForCausalLM(config).save_pretrained(tmp_path)
    backend = get_backend("hf", device="cpu")
    out = backend.generate(
        [{"role": "user", "content": "hi"}],
        TOOLS,
        # min_new_tokens (through extra_body) stops a random model from ending early on <eos>
        GenerateConfig(model=str(tmp_path), max_tokens=4, extra_body={"min_new_tokens": 4}),
    )
    assert out.usage.prompt_tokens == 5 and out.usage.completion_tokens == 4
    assert out.finish_reason == "length"
    with pytest.raises(LLMConfigError, match="cannot load the model"):
        backend.generate([], [], GenerateConfig(model=str(tmp_path / "missing")))


def test_statement_lists_graphs_beyond_the_shown_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A task whose graphs all have different model.py texts stays short: codes are capped."""
    import passnet.agent.prompting as prompting

    monkeypatch.setattr(prompting, "MAX_CODES", 0)
    text = prompting.task_statement(load_task(TASK))
    assert "class GraphModule" not in text and "## 6 more graph(s)" in text
    assert "`graphs/float32/0_cut_1x12` (float32): [128], [128], [1, 12, 128]" in text
