import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_args_0_: torch.Tensor, L_self_modules_embeddings_modules_word_embeddings_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embeddings_modules_token_type_embeddings_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embeddings_modules_position_embeddings_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embeddings_modules_LayerNorm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embeddings_modules_LayerNorm_parameters_bias_: torch.nn.parameter.Parameter, getitem: torch.Tensor, expand: torch.Tensor):
        l_args_0_ = L_args_0_
        l_self_modules_embeddings_modules_word_embeddings_parameters_weight_ = L_self_modules_embeddings_modules_word_embeddings_parameters_weight_
        l_self_modules_embeddings_modules_token_type_embeddings_parameters_weight_ = L_self_modules_embeddings_modules_token_type_embeddings_parameters_weight_
        l_self_modules_embeddings_modules_position_embeddings_parameters_weight_ = L_self_modules_embeddings_modules_position_embeddings_parameters_weight_
        l_self_modules_embeddings_modules_layer_norm_parameters_weight_ = L_self_modules_embeddings_modules_LayerNorm_parameters_weight_
        l_self_modules_embeddings_modules_layer_norm_parameters_bias_ = L_self_modules_embeddings_modules_LayerNorm_parameters_bias_
        gather = torch.gather(expand, dim = 1, index = getitem);  expand = None
        expand_1 = gather.expand(1, 16);  gather = None
        embedding = torch.nn.functional.embedding(l_args_0_, l_self_modules_embeddings_modules_word_embeddings_parameters_weight_, 0, None, 2.0, False, False);  l_args_0_ = l_self_modules_embeddings_modules_word_embeddings_parameters_weight_ = None
        embedding_1 = torch.nn.functional.embedding(expand_1, l_self_modules_embeddings_modules_token_type_embeddings_parameters_weight_, None, None, 2.0, False, False);  expand_1 = l_self_modules_embeddings_modules_token_type_embeddings_parameters_weight_ = None
        add = embedding + embedding_1;  embedding = embedding_1 = None
        embedding_2 = torch.nn.functional.embedding(getitem, l_self_modules_embeddings_modules_position_embeddings_parameters_weight_, None, None, 2.0, False, False);  getitem = l_self_modules_embeddings_modules_position_embeddings_parameters_weight_ = None
        add_1 = add + embedding_2;  add = embedding_2 = None
        layer_norm = torch.nn.functional.layer_norm(add_1, (64,), l_self_modules_embeddings_modules_layer_norm_parameters_weight_, l_self_modules_embeddings_modules_layer_norm_parameters_bias_, 1e-12);  add_1 = l_self_modules_embeddings_modules_layer_norm_parameters_weight_ = l_self_modules_embeddings_modules_layer_norm_parameters_bias_ = None
        dropout = torch.nn.functional.dropout(layer_norm, 0.1, False, False);  layer_norm = None
        return (dropout,)
